/**
 * Downloads: desktop uses /api/download/<key> (attachment);
 * mobile fetches the image, tries the share sheet, then opens it in a new tab,
 * then the direct URL.
 *
 * Browsers only allow the share sheet and new tabs inside a user gesture, and
 * an `await fetch()` between the tap and `navigator.share()` can use it up. So
 * the images are fetched ahead (`prefetchImage`, called when a result
 * arrives) and, when the blob is ready, share/open run synchronously in the tap.
 */

export type DownloadOutcome =
  | "started"
  | "shared"
  /** The user closed the share sheet: nothing to announce. */
  | "cancelled"
  | "opened"
  | "opened-direct"
  | "failed";

/** The browser facilities a download uses (parameters so the logic is testable without a DOM). */
export interface DownloadEnv {
  mobile: boolean;
  fetch(input: string, init?: RequestInit): Promise<Response>;
  share?: (data: ShareData) => Promise<void>;
  canShare?: (data: ShareData) => boolean;
  /** Opens a new tab; false when the browser blocked it. */
  open(url: string): boolean;
  /** Clicks a hidden <a download>. */
  clickLink(href: string, name: string): void;
  createObjectURL(blob: Blob): string;
  revokeObjectURL(url: string): void;
  setTimeout(fn: () => void, ms: number): unknown;
}

/** `styletwin-result.png`, `styletwin-360-front.jpg`: extension png by default, or jpg/webp by URL. */
export function downloadName(base: string, url: string): string {
  const path = url.split(/[?#]/)[0].toLowerCase();
  const ext = /\.(jpe?g)$/.test(path) ? "jpg" : path.endsWith(".webp") ? "webp" : "png";
  return `${base}.${ext}`;
}

/** /api/uploads/<key> -> /api/download/<key>; `name` asks the server for that attachment file name. */
export function toDownloadUrl(url: string, name?: string): string {
  const href = url.replace("/api/uploads/", "/api/download/");
  if (!name) return href;
  return `${href}${href.includes("?") ? "&" : "?"}name=${encodeURIComponent(name)}`;
}

export function isMobileDevice(nav: Navigator = navigator): boolean {
  const uaData = (nav as Navigator & { userAgentData?: { mobile?: boolean } })
    .userAgentData;
  if (uaData && typeof uaData.mobile === "boolean" && uaData.mobile) {
    return true;
  }
  return /Android|iPhone|iPad|iPod|Mobile/i.test(nav.userAgent);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function clickLink(href: string, name: string) {
  const a = document.createElement("a");
  a.href = href;
  a.download = name;
  a.rel = "noopener";
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  a.remove();
}

export function browserEnv(): DownloadEnv {
  const nav = globalThis.navigator;
  return {
    mobile: isMobileDevice(nav),
    fetch: (input, init) => globalThis.fetch(input, init),
    share: nav.share ? (data) => nav.share(data) : undefined,
    canShare: nav.canShare ? (data) => nav.canShare(data) : undefined,
    open: (url) => globalThis.open(url, "_blank") !== null,
    clickLink,
    createObjectURL: (blob) => URL.createObjectURL(blob),
    revokeObjectURL: (url) => URL.revokeObjectURL(url),
    setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  };
}

// ---- Prefetched images (mobile): a few recent results, kept as blobs.

const MAX_PREFETCHED = 8;
const pending = new Map<string, Promise<Blob>>();
const ready = new Map<string, Blob>();

/** Fetches `url` as a blob once (later calls share the request); failures are forgotten. */
export function prefetchImage(url: string, env: Pick<DownloadEnv, "fetch"> = browserEnv()): Promise<Blob> {
  let p = pending.get(url);
  if (!p) {
    p = env.fetch(url).then((res) => {
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return res.blob();
    });
    pending.set(url, p);
    p.then((blob) => {
      ready.set(url, blob);
      while (ready.size > MAX_PREFETCHED) {
        const oldest = ready.keys().next().value!;
        ready.delete(oldest);
        pending.delete(oldest);
      }
    }, () => pending.delete(url));
  }
  return p;
}

/** The blob of `url` if it already arrived (synchronous, so a tap handler can use it at once). */
export function prefetchedBlob(url: string): Blob | undefined {
  return ready.get(url);
}

/** Test hook: forget every prefetched image. */
export function clearPrefetched() {
  pending.clear();
  ready.clear();
}

function isAbort(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { name?: string }).name === "AbortError";
}

async function shareFiles(
  env: DownloadEnv,
  files: File[],
  title: string,
): Promise<"shared" | "cancelled" | "unavailable"> {
  if (!env.share || !env.canShare?.({ files })) return "unavailable";
  try {
    // Called before any await in this function: still inside the tap when the blobs were ready.
    await env.share({ files, title });
    return "shared";
  } catch (err) {
    // The user closed the share sheet: not a success, not a failure.
    return isAbort(err) ? "cancelled" : "unavailable";
  }
}

const EXT_OF_TYPE: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp" };

/** A blob as a file named `name`, its extension the blob's real one (a .png name on a JPEG blob: .jpg). */
const toFile = (blob: Blob, name: string) => {
  const ext = EXT_OF_TYPE[blob.type];
  const named = ext ? name.replace(/\.(png|jpe?g|webp)$/i, `.${ext}`) : name;
  return new File([blob], named, { type: blob.type || "image/png" });
};

export async function downloadImage(
  url: string,
  name: string,
  env: DownloadEnv = browserEnv(),
): Promise<DownloadOutcome> {
  if (!env.mobile) {
    const href = toDownloadUrl(url, name);
    try {
      // A link click cannot report a 404 or a 500: ask first, so a failure gets the save-it-yourself advice.
      const head = await env.fetch(href, { method: "HEAD" });
      if (!head.ok) return "failed";
      env.clickLink(href, name);
      return "started";
    } catch {
      return "failed";
    }
  }
  let blob = prefetchedBlob(url);
  if (!blob) {
    try {
      blob = await prefetchImage(url, env);
    } catch {
      return env.open(url) ? "opened-direct" : "failed";
    }
  }
  const shared = await shareFiles(env, [toFile(blob, name)], name);
  if (shared !== "unavailable") return shared;
  const blobUrl = env.createObjectURL(blob);
  const opened = env.open(blobUrl);
  env.setTimeout(() => env.revokeObjectURL(blobUrl), 10_000);
  if (opened) return "opened";
  return env.open(url) ? "opened-direct" : "failed";
}

/**
 * Mobile Download All: one share sheet with every file (a second share call
 * would no longer be inside the tap). "unavailable" means: fall back to one
 * download at a time.
 */
export async function shareImages(
  items: { url: string; name: string }[],
  env: DownloadEnv = browserEnv(),
): Promise<"shared" | "cancelled" | "unavailable"> {
  if (!env.mobile || !env.share || !env.canShare) return "unavailable";
  let blobs = items.map((i) => prefetchedBlob(i.url));
  if (blobs.some((b) => !b)) {
    try {
      blobs = await Promise.all(items.map((i) => prefetchImage(i.url, env)));
    } catch {
      return "unavailable";
    }
  }
  const files = items.map((item, i) => toFile(blobs[i]!, item.name));
  return await shareFiles(env, files, "StyleTwin 360° views");
}

export interface DownloadToast {
  title: string;
  description: string;
  variant?: "destructive";
}

/** The "Download Failed" advice (how to save the image by hand). */
export function downloadAdvice(mobile: boolean): string {
  return mobile
    ? "Long-press the image and choose Save to Photos."
    : "Right-click the image and choose Save image as.";
}

/** The toast for an outcome; null when there is nothing to say (the user cancelled the share sheet). */
export function downloadToast(
  outcome: DownloadOutcome,
  name: string,
  mobile: boolean = isMobileDevice(),
): DownloadToast | null {
  switch (outcome) {
    case "cancelled":
      return null;
    case "started":
      return { title: "Download Started", description: `Saving ${name}` };
    case "shared":
      return {
        title: "Shared Successfully",
        description: "Choose Save Image to keep it in your photos.",
      };
    case "opened":
    case "opened-direct":
      return {
        title: "Image Opened",
        description: "Long-press the image and choose Save to Photos.",
      };
    default:
      return {
        title: "Download Failed",
        description: downloadAdvice(mobile),
        variant: "destructive",
      };
  }
}

/**
 * One toast for a batch (one toast shows at a time, so a success must not
 * replace a failure): Download Failed naming what failed, else the first
 * non-cancelled outcome's toast; null when every download was cancelled.
 */
export function batchToast(
  results: { outcome: DownloadOutcome; label: string }[],
  mobile: boolean = isMobileDevice(),
  success: DownloadToast = { title: "Download Started", description: `Saving all ${results.length} views.` },
): DownloadToast | null {
  const failed = results.filter((r) => r.outcome === "failed").map((r) => r.label);
  if (failed.length > 0) {
    const which = failed.length === results.length
      ? "No view could be saved."
      : `${failed.join(", ")} could not be saved.`;
    return {
      title: "Download Failed",
      description: `${which} ${downloadAdvice(mobile)}`,
      variant: "destructive",
    };
  }
  const done = results.filter((r) => r.outcome !== "cancelled");
  if (done.length === 0) return null;
  if (done.every((r) => r.outcome === "started")) return success;
  return downloadToast(done[0].outcome, "", mobile);
}
