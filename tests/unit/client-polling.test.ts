import assert from "node:assert/strict";
import {
  errorBackoff,
  followGeneration,
  pollDelay,
  pollGeneration,
  rejectionStatus,
  resultImages,
  statusEvents,
  type StatusResponse,
} from "../../client/features/studio/polling.ts";

const processing: StatusResponse = {
  status: "processing",
  resultUrl: null,
  resultUrls: {},
  error: null,
  notes: [],
};
const done = (resultUrl: string): StatusResponse => ({ ...processing, status: "completed", resultUrl });

/** A failed request as the API client throws it: an Error carrying the HTTP status. */
const httpError = (status: number, message = "x") => Object.assign(new Error(message), { status });

/** A status endpoint that counts its calls and gives `answer(n)` to the nth. */
function countedStatus(answer: (n: number) => Promise<StatusResponse>) {
  let calls = 0;
  return { fetchStatus: () => answer(++calls), calls: () => calls };
}

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
    fetchStatus: () => Promise.resolve(++calls < 3 ? processing : done("/api/uploads/a")),
  });
  assert.equal(out.kind, "completed");
  assert.equal(calls, 3);
  assert.deepEqual(delays, [1000, 1000, 1000]);
});

Deno.test("polling: failed status ends polling", async () => {
  const { sleep } = fakeSleep();
  const out = await pollGeneration({
    sleep,
    fetchStatus: () => Promise.resolve({ ...processing, status: "failed", error: "No face" }),
  });
  assert.equal(out.kind, "failed");
  assert.equal(out.kind === "failed" && out.status.error, "No face");
});

Deno.test("polling: gives up after MORE than 60 attempts (the 61st still polls), schedule 15x1 s then 2 s", async () => {
  // Product rule: "After more than 60 attempts it gives up with Generation Timeout." Deliberately literal:
  // attempt 61 is made; only when it is not done either does polling stop (see POLLING.maxAttempts).
  const { delays, sleep } = fakeSleep();
  let calls = 0;
  const out = await pollGeneration({
    sleep,
    fetchStatus: () => (calls++, Promise.resolve(processing)),
  });
  assert.deepEqual(out, { kind: "timeout", attempts: 61 });
  assert.equal(calls, 61);
  assert.deepEqual(delays.slice(0, 15), Array(15).fill(1000));
  assert.deepEqual(delays.slice(15), Array(46).fill(2000));
  // About 107 s of waiting in all.
  assert.equal(delays.reduce((a, b) => a + b, 0), 107_000);
});

Deno.test("polling: a result on the 61st attempt still counts", async () => {
  const { sleep } = fakeSleep();
  let calls = 0;
  const out = await pollGeneration({
    sleep,
    fetchStatus: () => Promise.resolve(++calls === 61 ? done("/api/uploads/late") : processing),
  });
  assert.equal(out.kind, "completed");
});

Deno.test("polling: a 4xx answer (404 gone, 401 signed out) stops at once instead of retrying", async () => {
  for (const status of [404, 401, 403]) {
    const { delays, sleep } = fakeSleep();
    const server = countedStatus(() => Promise.reject(httpError(status)));
    const out = await pollGeneration({ sleep, fetchStatus: server.fetchStatus });
    assert.equal(out.kind, "rejected");
    assert.equal(out.kind === "rejected" && out.status, status);
    assert.equal(server.calls(), 1);
    assert.equal(delays.length, 1);
  }
});

Deno.test("polling: 5xx, 408 and 429 are retried with backoff, not treated as final", async () => {
  for (const status of [500, 503, 408, 429]) {
    const { sleep } = fakeSleep();
    const server = countedStatus((n) =>
      n < 3 ? Promise.reject(httpError(status)) : Promise.resolve(done("/api/uploads/x"))
    );
    const out = await pollGeneration({ sleep, fetchStatus: server.fetchStatus });
    assert.equal(out.kind, "completed", `status ${status}`);
    assert.equal(rejectionStatus(httpError(status)), null);
  }
  assert.equal(rejectionStatus(new TypeError("Failed to fetch")), null);
  assert.equal(rejectionStatus(httpError(404)), 404);
});

Deno.test("polling: request errors back off and count as attempts", async () => {
  const { delays, sleep } = fakeSleep();
  const server = countedStatus(() => Promise.reject(new Error("network")));
  const out = await pollGeneration({ sleep, fetchStatus: server.fetchStatus });
  assert.equal(out.kind, "timeout");
  assert.equal(server.calls(), 61);
  assert.equal(delays[0], 1000); // first wait is the normal one
  assert.equal(delays[1], 1000); // after error #1: 1.5^0
  assert.equal(delays[21], 1500); // after 21 polls
  assert.equal(delays[60], 5000);
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
      if (calls === 4) return Promise.resolve(done("/api/uploads/x"));
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

// --- The status stream (server-sent events) and its fallback to polling.

const sse = (...statuses: StatusResponse[]) =>
  statuses.map((s) => `event: status\ndata: ${JSON.stringify(s)}\n\n`).join("");

/** A body that sends `chunks` (split anywhere), then ends, errors or stays open. */
function body(chunks: string[], then: "end" | "error" | "hang" = "end") {
  const enc = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(enc.encode(c));
      if (then === "end") controller.close();
      if (then === "error") controller.error(new TypeError("network error"));
    },
  });
}

Deno.test("stream: parses status events split across chunks, ignores comments and other events", async () => {
  const text = ": waiting\n\n" + sse(processing) + "event: other\ndata: {}\n\n" + sse(done("/r.jpg"));
  const chunks = [text.slice(0, 7), text.slice(7, 40), text.slice(40, 41), text.slice(41)];
  const seen: StatusResponse[] = [];
  for await (const s of statusEvents(body(chunks))) seen.push(s);
  assert.deepEqual(seen, [processing, done("/r.jpg")]);
});

Deno.test("stream: completed from the stream, no poll made", async () => {
  let polls = 0;
  const { delays, sleep } = fakeSleep();
  const outcome = await followGeneration({
    openStream: () => Promise.resolve(statusEvents(body([sse(processing, done("/a.jpg"))], "hang"))),
    fetchStatus: () => (polls++, Promise.resolve(processing)),
    sleep,
  });
  assert.deepEqual(outcome, { kind: "completed", status: done("/a.jpg") });
  assert.equal(polls, 0);
  assert.deepEqual(delays, []);
});

Deno.test("stream: failed from the stream", async () => {
  const failed: StatusResponse = { ...processing, status: "failed", error: "no face" };
  const outcome = await followGeneration({
    openStream: () => Promise.resolve(statusEvents(body([sse(failed)]))),
    fetchStatus: () => Promise.reject(new Error("not called")),
    sleep: fakeSleep().sleep,
  });
  assert.deepEqual(outcome, { kind: "failed", status: failed });
});

for (
  const [what, open] of [
    ["cannot open", () => Promise.reject(new Error("refused: 502"))],
    ["breaks mid-way", () => Promise.resolve(statusEvents(body([sse(processing)], "error")))],
    ["ends before the job does", () => Promise.resolve(statusEvents(body([sse(processing)], "end")))],
    ["goes quiet", () => Promise.resolve(statusEvents(body([sse(processing)], "hang"), 30))],
  ] as const
) {
  Deno.test(`stream: falls back to the polling schedule when the stream ${what}`, async () => {
    const answers = [processing, processing, done("/b.jpg")];
    const { delays, sleep } = fakeSleep();
    const seen: string[] = [];
    const outcome = await followGeneration({
      openStream: open,
      fetchStatus: () => Promise.resolve(answers.shift()!),
      sleep,
      onStatus: (s) => seen.push(s.status),
    });
    assert.deepEqual(outcome, { kind: "completed", status: done("/b.jpg") });
    assert.deepEqual(delays, [1000, 1000, 1000], "the schedule's 1 s polls");
    assert.equal(seen.at(-1), "completed");
  });
}

Deno.test("stream: a 404 from the fallback poll still ends at once", async () => {
  const outcome = await followGeneration({
    openStream: () => Promise.reject(new Error("refused: 404")),
    fetchStatus: () => Promise.reject(httpError(404, "Generation not found")),
    sleep: fakeSleep().sleep,
  });
  assert.equal(outcome.kind, "rejected");
});

Deno.test("stream: aborting while the stream is open ends as aborted, without polling", async () => {
  const ctrl = new AbortController();
  let polls = 0;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode(sse(processing)));
      ctrl.signal.addEventListener("abort", () => c.error(new DOMException("aborted", "AbortError")));
    },
  });
  const outcome = followGeneration({
    openStream: () => Promise.resolve(statusEvents(stream)),
    fetchStatus: () => (polls++, Promise.resolve(processing)),
    sleep: fakeSleep().sleep,
    signal: ctrl.signal,
    onStatus: () => setTimeout(() => ctrl.abort(), 0),
  });
  assert.deepEqual(await outcome, { kind: "aborted" });
  assert.equal(polls, 0);
});
