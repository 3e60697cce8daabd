/** The local model's memory of what it refuses: per photo and per look, bounded, forgotten with the photo. */
import assert from "node:assert/strict";
import { KnownRefusals } from "../../server/imaging/local/known-refusals.ts";
import { defaultOptions } from "../../server/styling/catalog.ts";
import type { SelectedOptions } from "../../server/styling/option-keys.ts";
import { FULL_INTENSITY } from "./fixtures.ts";

const look = (photoId: string, hairColor = "platinum-blonde") => ({
  photoId,
  studioType: "hair" as const,
  options: { ...defaultOptions("hair"), hairColor },
  intensity: FULL_INTENSITY,
});

Deno.test("a look's refusal is its own: the same choices in any key order, not another shade or photo", () => {
  const known = new KnownRefusals();
  known.lookRefused(look("a"), ["too dark"]);
  // The same choices, their keys in another order (as another JSON body would give them).
  const reordered = {
    ...look("a"),
    options: Object.fromEntries(Object.entries(look("a").options).reverse()) as SelectedOptions,
  };
  assert.deepEqual(known.ofLook(reordered), ["too dark"]);
  assert.equal(known.ofLook(look("a", "auburn")), undefined);
  assert.equal(known.ofLook({ ...look("a"), intensity: { ...FULL_INTENSITY, lips: 0 } }), undefined);
  assert.equal(known.ofLook(look("b")), undefined);
  // A look's refusal says nothing of the photo; the photo's says nothing of a look.
  assert.equal(known.ofPhoto("a"), undefined);
  known.photoRefused("b", "No face found");
  assert.equal(known.ofPhoto("b"), "No face found");
  assert.equal(known.ofLook(look("b")), undefined);
});

Deno.test("refusals are bounded (the oldest goes, a refusal learned again is fresh) and forgotten with the photo", () => {
  const known = new KnownRefusals(3);
  known.photoRefused("a", "A");
  known.lookRefused(look("b"), ["B"]);
  known.photoRefused("c", "C");
  known.photoRefused("a", "A"); // learned again: now the newest
  known.photoRefused("d", "D");
  assert.equal(known.size, 3);
  assert.equal(known.ofLook(look("b")), undefined, "the oldest was kept");
  assert.equal(known.ofPhoto("a"), "A");
  known.lookRefused(look("a"), ["A2"]);
  known.forget(["a", "x"]);
  assert.equal(known.ofPhoto("a"), undefined);
  assert.equal(known.ofLook(look("a")), undefined);
  assert.equal(known.ofPhoto("d"), "D");
});
