/**
 * Downloads (spec section 7): desktop uses /api/download/<key> (attachment);
 * mobile fetches the image, tries the share sheet, then opens it in a new tab,
 * then the direct URL.
 */

export type DownloadOutcome =
  | "started"
  | "shared"
  | "opened"
  | "opened-direct"
  | "failed";

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

export async function downloadImage(
  url: string,
  name: string,
): Promise<DownloadOutcome> {
  if (!isMobileDevice()) {
    try {
      clickLink(toDownloadUrl(url, name), name);
      return "started";
    } catch {
      return "failed";
    }
  }
  try {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const blob = await res.blob();
    const file = new File([blob], name, { type: blob.type || "image/png" });
    if (navigator.canShare?.({ files: [file] }) && navigator.share) {
      try {
        await navigator.share({ files: [file], title: name });
        return "shared";
      } catch (err) {
        if (err instanceof DOMException && err.name === "AbortError") {
          return "shared";
        }
      }
    }
    const blobUrl = URL.createObjectURL(blob);
    const win = globalThis.open(blobUrl, "_blank");
    setTimeout(() => URL.revokeObjectURL(blobUrl), 10_000);
    if (win) return "opened";
    throw new Error("popup blocked");
  } catch {
    const win = globalThis.open(url, "_blank");
    return win ? "opened-direct" : "failed";
  }
}

export function downloadToast(
  outcome: DownloadOutcome,
  name: string,
): { title: string; description: string; variant?: "destructive" } {
  switch (outcome) {
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
        description: isMobileDevice()
          ? "Long-press the image and choose Save to Photos."
          : "Right-click the image and choose Save image as.",
        variant: "destructive",
      };
  }
}
