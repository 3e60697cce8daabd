import assert from "node:assert/strict";
import {
  errorBackoff,
  pollDelay,
  pollGeneration,
  resultImages,
  type StatusResponse,
} from "../../client/features/studio/polling.ts";

const processing: StatusResponse = {
  status: "processing",
  resultUrl: null,
  error: null,
};

function fakeSleep() {
  const delays: number[] = [];
  return { delays, sleep: (ms: number) => (delays.push(ms), Promise.resolve()) };
}

Deno.test("polling: 1 s for the first 15 polls, then 2 s", () => {
  for (let n = 1; n <= 15; n++) assert.equal(pollDelay(n), 1000);
  for (let n = 16; n <= 60; n++) assert.equal(pollDelay(n), 2000);
});

Deno.test("polling: error backoff is min(5 s, 1 s x 1.5^min(polls-20, 5)), never below 1 s", () => {
  assert.equal(errorBackoff(1), 1000);
  assert.equal(errorBackoff(20), 1000);
  assert.equal(errorBackoff(21), 1500);
  assert.equal(errorBackoff(22), 2250);
  assert.equal(errorBackoff(23), 3375);
  assert.equal(errorBackoff(24), 5000); // 5062.5 capped
  assert.equal(errorBackoff(40), 5000);
});

Deno.test("polling: completes and reports the status", async () => {
  const { delays, sleep } = fakeSleep();
  let calls = 0;
  const out = await pollGeneration({
    sleep,
    fetchStatus: () =>
      Promise.resolve(
        ++calls < 3 ? processing : {
          status: "completed",
          resultUrl: "/api/uploads/a",
          error: null,
        },
      ),
  });
  assert.equal(out.kind, "completed");
  assert.equal(calls, 3);
  assert.deepEqual(delays, [1000, 1000, 1000]);
});

Deno.test("polling: failed status ends polling", async () => {
  const { sleep } = fakeSleep();
  const out = await pollGeneration({
    sleep,
    fetchStatus: () => Promise.resolve({ status: "failed", resultUrl: null, error: "No face" }),
  });
  assert.equal(out.kind, "failed");
  assert.equal(out.kind === "failed" && out.status.error, "No face");
});

Deno.test("polling: gives up after 60 attempts with a timeout, schedule 15x1 s then 2 s", async () => {
  const { delays, sleep } = fakeSleep();
  let calls = 0;
  const out = await pollGeneration({
    sleep,
    fetchStatus: () => (calls++, Promise.resolve(processing)),
  });
  assert.deepEqual(out, { kind: "timeout", attempts: 60 });
  assert.equal(calls, 60);
  assert.deepEqual(delays.slice(0, 15), Array(15).fill(1000));
  assert.deepEqual(delays.slice(15), Array(45).fill(2000));
});

Deno.test("polling: request errors back off and count as attempts", async () => {
  const { delays, sleep } = fakeSleep();
  let calls = 0;
  const out = await pollGeneration({
    sleep,
    fetchStatus: () => {
      calls++;
      return Promise.reject(new Error("network"));
    },
  });
  assert.equal(out.kind, "timeout");
  assert.equal(calls, 60);
  assert.equal(delays[0], 1000); // first wait is the normal one
  assert.equal(delays[1], 1000); // after error #1: 1.5^0
  assert.equal(delays[21], 1500); // after 21 polls
  assert.equal(delays[59], 5000);
  assert.ok(delays.every((d) => d >= 1000 && d <= 5000));
});

Deno.test("polling: recovers after an error", async () => {
  const { sleep } = fakeSleep();
  let calls = 0;
  const out = await pollGeneration({
    sleep,
    fetchStatus: () => {
      calls++;
      if (calls === 2) return Promise.reject(new Error("blip"));
      if (calls === 4) {
        return Promise.resolve({
          status: "completed",
          resultUrl: "/api/uploads/x",
          error: null,
        });
      }
      return Promise.resolve(processing);
    },
  });
  assert.equal(out.kind, "completed");
});

Deno.test("polling: abort stops it", async () => {
  const ctrl = new AbortController();
  let calls = 0;
  const out = await pollGeneration({
    signal: ctrl.signal,
    sleep: () => Promise.resolve(),
    fetchStatus: () => {
      if (++calls === 2) ctrl.abort();
      return Promise.resolve(processing);
    },
  });
  assert.equal(out.kind, "aborted");
});

Deno.test("result images: one URL, or four angles with missing ones falling back to the first", () => {
  assert.deepEqual(
    resultImages({ resultUrl: "/a", resultUrls: { front: "/a" } }, false),
    ["/a"],
  );
  assert.deepEqual(
    resultImages({ resultUrl: "/a", resultUrls: { front: "/a", left: "/l" } }, true),
    ["/a", "/a", "/l", "/a"],
  );
  assert.deepEqual(resultImages({ resultUrl: "/a" }, true), ["/a", "/a", "/a", "/a"]);
  assert.deepEqual(resultImages({ resultUrl: null, resultUrls: {} }, true), []);
});
