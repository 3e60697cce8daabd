/**
 * The local model's capability map matches what it renders: every option
 * value it claims to honour changes the image (or, where this photo does not
 * allow it, says why in a note), and every value it does not honour is named
 * in the notes.
 */
import assert from "node:assert/strict";
import { keyLabel, LOCAL_CAPABILITIES } from "../../server/imaging/local/capabilities.ts";
import { deltaE, hexToLab } from "../../server/imaging/local/color.ts";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { PhotoCache, render } from "../../server/imaging/local/render.ts";
import { optionList } from "../../server/styling/catalog.ts";
import {
  OPTION_KEYS,
  type OptionKey,
  type SelectedOptions,
  type StudioType,
} from "../../server/styling/option-keys.ts";
import {
  cropFace,
  DARK_HAIR,
  decode,
  type Decoded,
  FRONTAL_FACES,
  job,
  meanLab,
  withPaintedBeard,
} from "./fixtures.ts";

const engine = await FaceEngine.load();

/**
 * Where a recolour shows: a patch of hair above the forehead, or of beard on
 * the chin (faces found on the plain render).
 */
async function recolourPatch(key: OptionKey, plain: Decoded): Promise<number[]> {
  const g = faceGeometry((await engine.detect(plain))[0].mesh);
  const [cx, cy] = key === "hairColor"
    ? [g.pts[10][0], g.pts[10][1] - 0.15 * g.fh]
    : [g.pts[152][0], (g.pts[17][1] + g.pts[152][1]) / 2];
  const r = 0.06 * g.fw, out: number[] = [];
  for (let y = Math.round(cy - r); y < cy + r; y++) {
    for (let x = Math.round(cx - r); x < cx + r; x++) out.push(y * plain.width + x);
  }
  return out;
}

/** Pixels whose largest channel difference exceeds 8 levels. */
function changedPixels(a: Decoded, b: Decoded): number {
  let n = 0;
  for (let i = 0; i < a.data.length; i += 3) {
    const d = Math.max(
      Math.abs(a.data[i] - b.data[i]),
      Math.abs(a.data[i + 1] - b.data[i + 1]),
      Math.abs(a.data[i + 2] - b.data[i + 2]),
    );
    if (d > 8) n++;
  }
  return n;
}

/** A visible change: more than this many pixels (a thin lash line at this face size is ~170). */
const MIN_CHANGED = 120;

const MAKEUP_KEYS: OptionKey[] = ["lookStyle", "eyeshadow", "lips", "baseMakeup", "cheeks", "extras"];
const SCENE_KEYS: OptionKey[] = ["setting", "cameraLens", "lighting"];

/** [studio, key, photo] for every honoured key: each on a photo where it can apply. */
async function cases(): Promise<[StudioType, OptionKey, Uint8Array][]> {
  const portrait = await cropFace(FRONTAL_FACES[5]);
  const darkHair = await cropFace(DARK_HAIR);
  const bearded = await withPaintedBeard(engine, FRONTAL_FACES[5]);
  return [
    ...MAKEUP_KEYS.map((k): [StudioType, OptionKey, Uint8Array] => ["makeup", k, portrait]),
    ...SCENE_KEYS.map((k): [StudioType, OptionKey, Uint8Array] => ["makeup", k, portrait]),
    ["hair", "hairColor", darkHair],
    ["barber", "hairColor", darkHair],
    ["barber", "facialHairColor", bearded],
  ];
}

Deno.test("every honoured option value changes the image, or a note says why not", async (t) => {
  // Each photo is styled many times, as in the studio: its decode, faces, matte and hair measure are
  // kept between renders, as a worker keeps them (this file took 47 s, now 26 s). A render from
  // the kept photo is byte for byte a fresh one: checked on each photo's first plain render.
  const photos = new PhotoCache();
  const keys = new Map<Uint8Array, string>();
  const styled = (photo: Uint8Array, changes: Partial<SelectedOptions>, studio: StudioType) =>
    render(engine, { ...job(photo, changes, undefined, studio), cacheKey: keys.get(photo) }, photos);
  for (const [studio, key, photo] of await cases()) {
    await t.step(`${studio} ${key}`, async () => {
      const isNew = !keys.has(photo);
      if (isNew) keys.set(photo, `photo-${keys.size}`);
      // A new photo's first render misses the cache: decoded, measured and kept.
      const fresh = isNew ? (await styled(photo, {}, studio)).image : undefined;
      const kept = (await styled(photo, {}, studio)).image;
      if (fresh) assert.deepEqual(kept, fresh, "the kept photo renders as a fresh one");
      const plain = await decode(kept);
      const list = optionList(key, studio);
      const honoured = list.slice(1).filter((e) => LOCAL_CAPABILITIES.supported[key]?.includes(e.id));
      assert.equal(honoured.length, list.length - 1, `the model claims every ${key} value`);
      const refused: string[] = [];
      // L* of the shades refused and applied: refusals only at the light end (bleaching).
      const refusedL: number[] = [], appliedL: number[] = [];
      for (const entry of honoured) {
        const res = await styled(photo, { [key]: entry.id }, studio);
        const why = res.notes.find((n) =>
          n.startsWith(`${keyLabel(key)} "${entry.label}" was not applied: `)
        );
        if (why) {
          refused.push(why);
          refusedL.push(hexToLab((entry as { hex?: string }).hex ?? "#000000")[0]);
          continue;
        }
        // A note may qualify how the chosen value was applied (e.g. a framing widened), never another value.
        for (const note of res.notes) {
          assert.ok(note.includes(entry.label), `${entry.id}: unexpected note ${note}`);
        }
        const n = changedPixels(plain, await decode(res.image));
        if (n >= MIN_CHANGED) continue;
        // A recolour to the colour the hair or beard already has changes little: allowed.
        const hex = (entry as { hex?: string }).hex;
        assert.ok(
          hex && (key === "hairColor" || key === "facialHairColor"),
          `${key} "${entry.id}": ${n} pixels`,
        );
        const already = deltaE(meanLab(plain, await recolourPatch(key, plain)), hexToLab(hex));
        assert.ok(already < 12, `${key} "${entry.id}" changed ${n} pixels, the colour is ΔE ${already} away`);
      }
      // Only bleaching dark hair may be refused on this photo, and a camera whose framing is the
      // one the photo gets anyway (the photo ends close below the face).
      for (const why of refused) {
        assert.match(
          why,
          key === "cameraLens"
            ? /the photo ends too close below the face for a wider framing$/
            : /lightening dark hair this much needs a generative model$/,
        );
      }
      if (refusedL.length) {
        assert.ok(
          Math.min(...refusedL) > Math.max(...appliedL),
          `a shade of L* ${Math.min(...refusedL).toFixed(0)} was refused, one of ${
            Math.max(...appliedL).toFixed(0)
          } applied`,
        );
      }
    });
  }
});

Deno.test("every option value the model does not honour is named in the notes", async () => {
  const photo = await cropFace(FRONTAL_FACES[5]);
  const photos = new PhotoCache(); // one photo styled round after round, as in the studio
  for (const studio of ["makeup", "hair", "barber"] as StudioType[]) {
    const unsupported = OPTION_KEYS.map((key) => {
      const ids = optionList(key, studio).slice(1).filter((e) =>
        !LOCAL_CAPABILITIES.supported[key]?.includes(e.id)
      );
      return [key, ids] as const;
    }).filter(([, ids]) => ids.length > 0);
    assert.ok(unsupported.some(([key]) => key === "outfit"), "outfits are not honoured");
    // One render per round sets the round's value on every such key at once.
    const rounds = Math.max(...unsupported.map(([, ids]) => ids.length));
    for (let i = 0; i < rounds; i++) {
      const pick = unsupported.filter(([, ids]) => i < ids.length).map(([key, ids]) =>
        [key, ids[i]] as const
      );
      const res = await render(
        engine,
        {
          ...job(photo, Object.fromEntries(pick.map(([k, e]) => [k, e.id])), undefined, studio),
          cacheKey: "photo",
        },
        photos,
      );
      for (const [key, entry] of pick) {
        assert.ok(
          res.notes.includes(`${keyLabel(key)} "${entry.label}" is not supported by the local model`),
          `${studio} ${key} "${entry.id}": ${res.notes.join("; ")}`,
        );
      }
    }
  }
});

Deno.test("every option group with values the local model cannot render has a user-facing reason", () => {
  const reasons = LOCAL_CAPABILITIES.unavailable?.options ?? {};
  for (const key of OPTION_KEYS) {
    const ids = new Set(
      (["makeup", "hair", "barber"] as StudioType[]).flatMap((s) =>
        optionList(key, s).slice(1).map((e) => e.id)
      ),
    );
    const missing = [...ids].filter((id) => !LOCAL_CAPABILITIES.supported[key]?.includes(id));
    if (missing.length > 0) {
      assert.ok(reasons[key], `${key}: ${missing.length} unavailable values but no reason`);
      assert.match(reasons[key]!, /generative image model/);
    } else assert.equal(reasons[key], undefined, `${key} is fully supported but has a reason`);
  }
  for (const what of ["instructions", "references", "view360"] as const) {
    assert.match(LOCAL_CAPABILITIES.unavailable![what]!, /generative image model/);
  }
});
