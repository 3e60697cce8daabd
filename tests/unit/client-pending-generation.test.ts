/** The pending generation survives (session storage) until it ends; junk in storage is ignored. */
import assert from "node:assert/strict";
import { loadPending, savePending } from "../../client/lib/pending-generation.ts";

Deno.test("pending generation: saved with its photo, loaded back, cleared", () => {
  const photo = { id: "p1", url: "/api/uploads/k.jpg", name: "me.jpg" };
  savePending({ generationId: "g1", photoId: "p1", view360: true, photo });
  assert.deepEqual(loadPending(), { generationId: "g1", photoId: "p1", view360: true, photo });
  savePending(null);
  assert.equal(loadPending(), null);
});

Deno.test("pending generation: an old record without a photo still resumes; junk is ignored", () => {
  sessionStorage.setItem(
    "styletwin.pending",
    JSON.stringify({ generationId: "g2", photoId: "p2", view360: false }),
  );
  assert.deepEqual(loadPending(), { generationId: "g2", photoId: "p2", view360: false, photo: undefined });
  sessionStorage.setItem(
    "styletwin.pending",
    JSON.stringify({ generationId: "g3", photoId: "p3", photo: { id: "p3", url: "https://evil.example/x" } }),
  );
  assert.equal(loadPending()?.photo, undefined, "only same-origin upload URLs are trusted");
  sessionStorage.setItem("styletwin.pending", "{not json");
  assert.equal(loadPending(), null);
  sessionStorage.setItem("styletwin.pending", JSON.stringify({ photoId: "p" }));
  assert.equal(loadPending(), null);
  savePending(null);
});
