import assert from "node:assert/strict";
import { OPTION_KEYS } from "../../server/styling/option-keys.ts";
import {
  PREVIEW_DEBOUNCE_MS,
  previewBody,
  previewDelay,
  previewNotes,
} from "../../client/features/studio/use-preview.ts";
import { framingOnly } from "../../client/features/studio/use-framed-before.ts";
import type { GeneratePayload } from "../../client/features/studio/option-model.ts";

const defaults = Object.fromEntries(OPTION_KEYS.map((k) => [k, `default-${k}`]));
const payload = {
  photoId: "p1",
  studioType: "makeup",
  options: { ...defaults, lips: "classic-red-matte", cameraLens: "portrait-85mm", setting: "beach-sunset" },
  intensity: { lookStyle: 60, eyeshadow: 60, lips: 90, baseMakeup: 60, cheeks: 60, extras: 60 },
  view360: true,
  additionalInstructions: "soft",
} as unknown as GeneratePayload;

Deno.test("preview body: the generate body without the 360° set", () => {
  const b = previewBody(payload);
  assert.equal(b.view360, false);
  assert.equal(b.options.lips, "classic-red-matte");
  assert.equal(payload.view360, true, "the generate body itself is not changed");
});

Deno.test("framing only: the result's camera framing, every other choice at its default", () => {
  const b = framingOnly(payload, defaults);
  assert.equal(b.options.cameraLens, "portrait-85mm");
  assert.equal(b.options.lips, "default-lips");
  assert.equal(b.options.setting, "default-setting");
  assert.equal(b.view360, false);
  assert.equal(b.additionalInstructions, null);
  assert.equal(b.photoId, "p1");
});

Deno.test("preview notes: a URI-encoded JSON array of strings; anything else is none", () => {
  assert.deepEqual(previewNotes(encodeURIComponent(JSON.stringify(["Pose kept"]))), ["Pose kept"]);
  assert.deepEqual(previewNotes(null), []);
  assert.deepEqual(previewNotes("%7Bnot-json"), []);
  assert.deepEqual(previewNotes(encodeURIComponent(JSON.stringify({ a: 1 }))), []);
  assert.deepEqual(previewNotes(encodeURIComponent(JSON.stringify(["a", 2, "b"]))), ["a", "b"]);
});

Deno.test("preview delay: a photo's first preview is asked for at once, a change on the same photo is debounced", () => {
  // A new upload with a look chosen: asked during the photo's first preparation step (finding the face) the
  // preview waits for that step only; 300 ms later it waited for the segmentation too (a lipstick 170-253 ms
  // against 279-855 ms through the server).
  assert.equal(previewDelay(payload, null), 0, "the studio's first preview");
  assert.equal(previewDelay(payload, "p0"), 0, "the first preview of another photo");
  assert.equal(previewDelay(payload, "p1"), PREVIEW_DEBOUNCE_MS, "another choice on the same photo");
});
