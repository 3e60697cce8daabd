import assert from "node:assert/strict";
import { OPTION_KEYS } from "../../server/styling/option-keys.ts";
import { type StylingCatalog, withPresentation } from "../../client/features/studio/catalog.ts";
import {
  buildGeneratePayload,
  initialSelections,
  lookLayers,
  STUDIO_GROUPS,
} from "../../client/features/studio/option-model.ts";
import {
  GENERIC_OPTION_REASON,
  groupUnavailableReason,
  instructionsUnavailableReason,
  modelInfo,
  optionUnavailableReason,
  view360UnavailableReason,
} from "../../client/features/studio/model-availability.ts";
import { downloadName, toDownloadUrl } from "../../client/lib/download.ts";
import { formatCredits, splitFullName, userLabel } from "../../client/lib/account-labels.ts";

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

/** The same catalogue served with a hosted model that renders everything and all four angles. */
const hosted = {
  ...catalog,
  models: {
    active: "gemini",
    angles: ["front", "right", "left", "back"],
    supported: { lips: ["red", "nude"], facialHair: ["beard"], hairStyle: ["buzz"], setting: ["beach"] },
  },
} as unknown as StylingCatalog;

/** The local model with the per-key reasons the server sends. */
const withReasons = {
  ...catalog,
  models: {
    active: "local",
    angles: ["front"],
    supported: { lips: ["red"] },
    unavailable: {
      options: { facialHair: "A new beard style needs a generative image model" },
      instructions: "Additional instructions need a generative image model",
      view360: "The 360° view needs a generative image model",
    },
  },
} as unknown as StylingCatalog;

Deno.test("availability: the default and supported ids can be chosen; others carry a reason", () => {
  const lips = catalog.makeup.lips;
  assert.equal(optionUnavailableReason(catalog, "lips", "none", lips), null);
  assert.equal(optionUnavailableReason(catalog, "lips", "red", lips), null);
  assert.equal(optionUnavailableReason(catalog, "lips", "nude", lips), GENERIC_OPTION_REASON);
  assert.equal(
    optionUnavailableReason(withReasons, "facialHair", "beard", catalog.barber.facialHair),
    "A new beard style needs a generative image model",
  );
  // A group whose every non-default entry is off says so once; a group with one usable entry does not.
  assert.equal(
    groupUnavailableReason(withReasons, "facialHair", catalog.barber.facialHair),
    "A new beard style needs a generative image model",
  );
  assert.equal(groupUnavailableReason(withReasons, "lips", catalog.makeup.lips), null);
});

Deno.test("availability: instructions and 360° need a generative model; the server's reasons win", () => {
  assert.equal(modelInfo(catalog).local, true);
  assert.equal(modelInfo(hosted).local, false);
  assert.match(instructionsUnavailableReason(catalog) ?? "", /generative image model/);
  assert.equal(instructionsUnavailableReason(hosted), null);
  assert.equal(
    instructionsUnavailableReason(withReasons),
    "Additional instructions need a generative image model",
  );
  assert.match(view360UnavailableReason(catalog) ?? "", /front view only/);
  assert.equal(view360UnavailableReason(withReasons), "The 360° view needs a generative image model");
  assert.equal(view360UnavailableReason(hosted), null);
});

Deno.test("generate payload: what the model cannot do is never sent", () => {
  const s = initialSelections();
  s.byStudio.makeup = { lips: "nude" }; // not rendered by the local model
  s.view360 = true;
  s.instructions = "keep my freckles";
  const p = buildGeneratePayload(catalog, "photo-1", s);
  assert.equal(p.options.lips, "none");
  assert.equal(p.view360, false);
  assert.equal(p.additionalInstructions, null);
  const h = buildGeneratePayload(hosted, "photo-1", s);
  assert.equal(h.options.lips, "nude");
  assert.equal(h.view360, true);
  assert.equal(h.additionalInstructions, "keep my freckles");
});

Deno.test("a look lists the layers it includes, in group order", () => {
  const c = {
    ...catalog,
    makeup: {
      ...catalog.makeup,
      lookStyles: [
        { id: "no-makeup", label: "No Makeup" },
        { id: "glam", label: "Glam", includes: { lips: "red", eyeshadow: "bronze", cheeks: "gone" } },
      ],
    },
  } as unknown as StylingCatalog;
  assert.deepEqual(
    lookLayers(c, "glam").map((l) => `${l.title}: ${l.entry.label}`),
    ["Eyeshadow: BRONZE", "Lips: RED"],
  );
  assert.deepEqual(lookLayers(c, "no-makeup"), []);
});

Deno.test("generate payload: every key, active studio + scene choices, defaults for the rest", () => {
  const s = initialSelections();
  s.studio = "barber";
  s.byStudio.barber = { facialHair: "beard", hairStyle: "buzz" };
  s.byStudio.makeup = { lips: "red" }; // not the active studio: not sent
  s.scene = { setting: "beach" };
  s.view360 = true;
  s.instructions = "  ";
  const p = buildGeneratePayload(hosted, "photo-1", s);
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
  const p = buildGeneratePayload(hosted, "photo-1", s);
  assert.equal(p.studioType, "makeup");
  assert.equal(p.options.lips, "red");
  assert.equal(p.options.eyeshadow, "none");
  assert.equal(p.intensity?.lips, 85);
  assert.equal(p.intensity?.cheeks, 60);
  assert.equal(p.additionalInstructions, "soft finish");
  assert.equal(STUDIO_GROUPS.makeup.length, 6);
});

Deno.test("download names and URLs: styletwin-result.<ext>, /api/download/<key>", () => {
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
  assert.equal(userLabel({ ...u, full_name: "  Ada  " }), "Ada");
});

Deno.test("a full name splits into the profile's first name (its first word) and last name (the rest)", () => {
  assert.deepEqual(splitFullName(" Ada  King Lovelace "), { first: "Ada", last: "King Lovelace" });
  assert.deepEqual(splitFullName("Cher"), { first: "Cher", last: "" });
  assert.deepEqual(splitFullName(""), { first: "", last: "" });
  assert.deepEqual(splitFullName(null), { first: "", last: "" });
});

Deno.test("the catalogue's presentation is joined to its options: a look's layers, a light's colours", () => {
  const served = {
    makeup: { lookStyles: [{ id: "glam", label: "Glam" }, { id: "none", label: "No Makeup" }] },
    hair: { colors: [{ id: "auburn", label: "Auburn", hex: "#7E2E1F" }] },
    barber: {},
    scene: { lighting: [{ id: "warm", label: "Warm" }] },
    presentation: {
      makeup: { lookStyles: { glam: { includes: { lips: "red" } } } },
      scene: { lighting: { warm: { swatch: ["#fff", "#000"] } } },
    },
    defaults: {},
    models: { active: "local", angles: ["front"], supported: {}, unavailable: {} },
  } as unknown as Parameters<typeof withPresentation>[0];
  const catalog = withPresentation(served);
  assert.deepEqual(catalog.makeup.lookStyles, [
    { id: "glam", label: "Glam", includes: { lips: "red" } },
    { id: "none", label: "No Makeup" },
  ]);
  assert.deepEqual(catalog.scene.lighting, [{ id: "warm", label: "Warm", swatch: ["#fff", "#000"] }]);
  assert.deepEqual(catalog.hair.colors, [{ id: "auburn", label: "Auburn", hex: "#7E2E1F" }]);
  assert.equal("presentation" in catalog, false);
});
