import assert from "node:assert/strict";
import { expectedSeconds, progressFraction, remainingText } from "../../client/lib/estimate.ts";
import { CAMERA_FAILURE_TEXT, cameraFailureKind } from "../../client/lib/camera-failure.ts";

Deno.test("generation estimate: per angle, never 100% before the server says done", () => {
  assert.equal(expectedSeconds(true, 1), 8);
  assert.equal(expectedSeconds(false, 4), 80);
  assert.equal(progressFraction(0, 8), 0);
  assert.equal(progressFraction(4, 8), 0.5);
  assert.ok(progressFraction(8, 8) > 0.9 && progressFraction(8, 8) < 0.95);
  assert.ok(progressFraction(1000, 8) <= 0.95);
  assert.equal(remainingText(2, 8), "About 6 s left");
  assert.equal(remainingText(7.5, 8), "Almost done...");
  assert.equal(remainingText(0, 80 * 2), "About 3 min left");
});

Deno.test("camera failures say what happened and offer a photo instead", () => {
  const err = (name: string) => Object.assign(new Error("x"), { name });
  assert.equal(cameraFailureKind(err("NotAllowedError")), "refused");
  assert.equal(cameraFailureKind(err("NotFoundError")), "no-camera");
  assert.equal(cameraFailureKind(err("NotReadableError")), "busy");
  assert.equal(cameraFailureKind(new TypeError("no mediaDevices")), "unsupported");
  assert.equal(CAMERA_FAILURE_TEXT.refused.title, "Camera Access Refused");
  for (const t of Object.values(CAMERA_FAILURE_TEXT)) {
    assert.match(t.description, /choose a photo instead\.$/i);
  }
});
