/** Downloads: desktop checks before clicking, mobile shares within the tap, cancelling says nothing. */
import assert from "node:assert/strict";
import {
  batchToast,
  clearPrefetched,
  type DownloadEnv,
  downloadImage,
  downloadToast,
  prefetchedBlob,
  prefetchImage,
  shareImages,
} from "../../client/lib/download.ts";

interface Log {
  calls: string[];
  shared: ShareData[];
}

function env(over: Partial<DownloadEnv> & { status?: number } = {}): DownloadEnv & Log {
  const log: Log = { calls: [], shared: [] };
  const base: DownloadEnv = {
    mobile: true,
    fetch: (url, init) => {
      log.calls.push(`${init?.method ?? "GET"} ${url}`);
      const status = over.status ?? 200;
      return Promise.resolve(
        new Response(status === 200 ? new Blob(["png"], { type: "image/png" }) : null, { status }),
      );
    },
    share: (data) => {
      log.shared.push(data);
      log.calls.push("share");
      return Promise.resolve();
    },
    canShare: () => true,
    open: (url) => (log.calls.push(`open ${url}`), true),
    clickLink: (href, name) => void log.calls.push(`click ${href} as ${name}`),
    createObjectURL: () => "blob:1",
    revokeObjectURL: () => {},
    setTimeout: () => 0,
  };
  return Object.assign(base, over, log);
}

const abort = () => Promise.reject(Object.assign(new Error("Share canceled"), { name: "AbortError" }));

Deno.test("download (mobile): the shared file is named by what it holds (a .png name on a JPEG: .jpg)", async () => {
  clearPrefetched();
  const jpeg = env({
    fetch: () => Promise.resolve(new Response(new Blob(["jpg"], { type: "image/jpeg" }))),
  });
  assert.equal(await downloadImage("/api/uploads/b.jpg", "styletwin-makeup-1.png", jpeg), "shared");
  const [file] = jpeg.shared[0].files!;
  assert.deepEqual([file.name, file.type], ["styletwin-makeup-1.jpg", "image/jpeg"]);
});

Deno.test("download (mobile): closing the share sheet is 'cancelled', and says nothing", async () => {
  clearPrefetched();
  const e = env({ share: abort });
  assert.equal(await downloadImage("/api/uploads/a.png", "styletwin-result.png", e), "cancelled");
  assert.equal(downloadToast("cancelled", "styletwin-result.png", true), null);
  assert.ok(!e.calls.some((c) => c.startsWith("open")), "no tab opens after a cancel");
});

Deno.test("download (mobile): share works; share refused falls back to a new tab, then the direct URL", async () => {
  clearPrefetched();
  assert.equal(await downloadImage("/api/uploads/a.png", "x.png", env()), "shared");
  clearPrefetched();
  const notAllowed = env({
    share: () => Promise.reject(Object.assign(new Error("no"), { name: "NotAllowedError" })),
  });
  assert.equal(await downloadImage("/api/uploads/a.png", "x.png", notAllowed), "opened");
  clearPrefetched();
  assert.equal(await downloadImage("/api/uploads/a.png", "x.png", env({ canShare: () => false })), "opened");
  clearPrefetched();
  const fetchFails = env({ status: 404 });
  assert.equal(await downloadImage("/api/uploads/a.png", "x.png", fetchFails), "opened-direct");
  assert.ok(fetchFails.calls.includes("open /api/uploads/a.png"));
  clearPrefetched();
  assert.equal(
    await downloadImage("/api/uploads/a.png", "x.png", env({ status: 500, open: () => false })),
    "failed",
  );
});

Deno.test("download (mobile): a prefetched image is shared synchronously, inside the tap", async () => {
  clearPrefetched();
  const e = env();
  await prefetchImage("/api/uploads/p.png", e);
  assert.ok(prefetchedBlob("/api/uploads/p.png"));
  const fetchesBefore = e.calls.filter((c) => c.startsWith("GET")).length;
  const p = downloadImage("/api/uploads/p.png", "styletwin-result.png", e);
  // No await yet: share must already have been called (a user gesture does not survive awaits).
  assert.equal(e.calls.at(-1), "share");
  assert.equal(await p, "shared");
  assert.equal(e.calls.filter((c) => c.startsWith("GET")).length, fetchesBefore, "no second fetch");
  assert.equal((e.shared[0].files ?? [])[0].name, "styletwin-result.png");
});

Deno.test("download (mobile): prefetch shares one request and forgets failures", async () => {
  clearPrefetched();
  const e = env();
  await Promise.all([prefetchImage("/u/1", e), prefetchImage("/u/1", e)]);
  assert.equal(e.calls.length, 1);
  const bad = env({ status: 500 });
  await assert.rejects(prefetchImage("/u/2", bad));
  assert.equal(prefetchedBlob("/u/2"), undefined);
  await assert.rejects(prefetchImage("/u/2", bad));
  assert.equal(bad.calls.length, 2, "a failed prefetch is tried again next time");
});

Deno.test("download (desktop): HEAD the attachment URL, then click it; a failing URL is 'failed'", async () => {
  const ok = env({ mobile: false });
  assert.equal(await downloadImage("/api/uploads/k.png", "styletwin-360-front.png", ok), "started");
  assert.deepEqual(ok.calls, [
    "HEAD /api/download/k.png?name=styletwin-360-front.png",
    "click /api/download/k.png?name=styletwin-360-front.png as styletwin-360-front.png",
  ]);
  const missing = env({ mobile: false, status: 404 });
  assert.equal(await downloadImage("/api/uploads/k.png", "x.png", missing), "failed");
  assert.ok(!missing.calls.some((c) => c.startsWith("click")));
  const offline = env({ mobile: false, fetch: () => Promise.reject(new TypeError("Failed to fetch")) });
  assert.equal(await downloadImage("/api/uploads/k.png", "x.png", offline), "failed");
});

Deno.test("download all (mobile): one share sheet with the four files; unavailable without share", async () => {
  clearPrefetched();
  const items = ["front", "right", "left", "back"].map((a) => ({
    url: "/api/uploads/same.png",
    name: `styletwin-360-${a}.png`,
  }));
  const e = env();
  assert.equal(await shareImages(items, e), "shared");
  assert.equal(e.shared.length, 1);
  assert.deepEqual((e.shared[0].files ?? []).map((f) => f.name), items.map((i) => i.name));
  assert.equal(await shareImages(items, env({ share: abort })), "cancelled");
  assert.equal(await shareImages(items, env({ canShare: () => false })), "unavailable");
  assert.equal(await shareImages(items, env({ mobile: false })), "unavailable");
});

Deno.test("download all: one failure wins over the successes (one toast at a time)", () => {
  const t = batchToast([
    { outcome: "started", label: "FRONT" },
    { outcome: "failed", label: "RIGHT" },
    { outcome: "started", label: "LEFT" },
    { outcome: "started", label: "BACK" },
  ], false);
  assert.equal(t?.title, "Download Failed");
  assert.equal(t?.variant, "destructive");
  assert.match(t!.description, /RIGHT could not be saved\. Right-click the image and choose Save image as\./);
  const mobile = batchToast(
    [{ outcome: "failed", label: "FRONT" }, { outcome: "failed", label: "BACK" }],
    true,
  );
  assert.match(mobile!.description, /Long-press the image and choose Save to Photos\./);
  assert.deepEqual(
    batchToast([{ outcome: "started", label: "FRONT" }, { outcome: "started", label: "RIGHT" }], false),
    { title: "Download Started", description: "Saving all 2 views." },
  );
  assert.equal(batchToast([{ outcome: "cancelled", label: "FRONT" }], true), null);
  assert.equal(batchToast([{ outcome: "opened", label: "FRONT" }], true)?.title, "Image Opened");
});
