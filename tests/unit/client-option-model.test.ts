import assert from "node:assert/strict";
import { OPTION_KEYS } from "../../server/styling/option-keys.ts";
import type { StylingCatalog } from "../../client/features/studio/catalog.ts";
import {
  buildGeneratePayload,
  initialSelections,
  isUnsupported,
  STUDIO_GROUPS,
} from "../../client/features/studio/option-model.ts";
import { downloadName, toDownloadUrl } from "../../client/lib/download.ts";
import { formatCredits, userLabel } from "../../client/api/session-format.ts";

const e = (...ids: string[]) => ids.map((id) => ({ id, label: id.toUpperCase() }));
const catalog = {
  makeup: {
    lookStyles: e("no-makeup", "glam"),
    eyeshadow: e("none", "bronze"),
    lips: e("none", "red", "nude"),
    baseMakeup: e("none"),
    cheeks: e("none"),
    extras: e("none"),
  },
  hair: { styles: e("same"), lengths: e("same"), textures: e("same"), colors: e("same", "copper") },
  barber: {
    hairStyles: e("same", "buzz"),
    hairLengths: e("same"),
    hairTextures: e("same"),
    hairColors: e("same"),
    facialHair: e("none", "beard"),
    facialHairColors: e("same"),
  },
  scene: {
    outfits: e("same", "suit"),
    shoes: e("same"),
    poses: e("same"),
    accessories: e("none"),
    activities: e("none"),
    settings: e("studio", "beach"),
    camera: e("85mm"),
    lighting: e("soft"),
  },
  defaults: Object.fromEntries(OPTION_KEYS.map((k) => [k, `default-${k}`])),
  models: { active: "local", angles: ["front"], supported: { lips: ["red"] } },
} as unknown as StylingCatalog;

Deno.test("unsupported: not the default and not in models.supported", () => {
  const lips = catalog.makeup.lips;
  assert.equal(isUnsupported(catalog, "lips", "none", lips), false);
  assert.equal(isUnsupported(catalog, "lips", "red", lips), false);
  assert.equal(isUnsupported(catalog, "lips", "nude", lips), true);
  assert.equal(isUnsupported(catalog, "hairColor", "copper", catalog.hair.colors), true);
});

Deno.test("generate payload: every key, active studio + scene choices, defaults for the rest", () => {
  const s = initialSelections();
  s.studio = "barber";
  s.byStudio.barber = { facialHair: "beard", hairStyle: "buzz" };
  s.byStudio.makeup = { lips: "red" }; // not the active studio: not sent
  s.scene = { setting: "beach" };
  s.view360 = true;
  s.instructions = "  ";
  const p = buildGeneratePayload(catalog, "photo-1", s);
  assert.deepEqual(Object.keys(p.options).sort(), [...OPTION_KEYS].sort());
  assert.equal(p.studioType, "barber");
  assert.equal(p.options.facialHair, "beard");
  assert.equal(p.options.hairStyle, "buzz");
  assert.equal(p.options.facialHairColor, "same");
  assert.equal(p.options.lips, "default-lips");
  assert.equal(p.options.setting, "beach");
  assert.equal(p.options.outfit, "same");
  assert.equal(p.view360, true);
  assert.equal(p.additionalInstructions, null);
  assert.equal(p.intensity, undefined);
});

Deno.test("generate payload: makeup sends intensity; stale ids fall back to the default", () => {
  const s = initialSelections();
  s.byStudio.makeup = { lips: "red", eyeshadow: "gone-from-catalog" };
  s.intensity.lips = 85;
  s.instructions = " soft finish ";
  const p = buildGeneratePayload(catalog, "photo-1", s);
  assert.equal(p.studioType, "makeup");
  assert.equal(p.options.lips, "red");
  assert.equal(p.options.eyeshadow, "none");
  assert.equal(p.intensity?.lips, 85);
  assert.equal(p.intensity?.cheeks, 60);
  assert.equal(p.additionalInstructions, "soft finish");
  assert.equal(STUDIO_GROUPS.makeup.length, 6);
});

Deno.test("download names and URLs follow the spec", () => {
  assert.equal(downloadName("styletwin-result", "/api/uploads/abc"), "styletwin-result.png");
  assert.equal(downloadName("styletwin-360-front", "/api/uploads/abc.JPG"), "styletwin-360-front.jpg");
  assert.equal(downloadName("styletwin-result", "/api/uploads/abc.webp?x=1"), "styletwin-result.webp");
  assert.equal(toDownloadUrl("/api/uploads/k1.png"), "/api/download/k1.png");
  assert.equal(
    toDownloadUrl("/api/uploads/k1.png", "styletwin-result.png"),
    "/api/download/k1.png?name=styletwin-result.png",
  );
});

Deno.test("header texts: credits pill and user label", () => {
  const u = { full_name: "Ada Lovelace", email: "ada@x.io", credits: 8 };
  assert.equal(formatCredits(null), "0");
  assert.equal(formatCredits(u), "8");
  assert.equal(formatCredits({ ...u, credits: 999999 }), "∞ (Admin)");
  assert.equal(userLabel(u), "Ada");
  assert.equal(userLabel({ ...u, full_name: "" }), "ada");
  assert.equal(userLabel(null), "User");
});
