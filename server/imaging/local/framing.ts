/**
 * 9:16 framing: the photo is scaled (never stretched) so the face has a
 * portrait size, placed with the eyes about 40% from the top. The framing is
 * chosen from what the photo holds: a close framing that would enlarge the
 * face more than its resolution supports is widened, and the photo's bottom
 * edge (where the person is cut off) always reaches the frame's bottom, so no
 * bust floats mid-frame. Where the photo does not cover the frame (sides,
 * top) the gap is filled with a blurred, darkened copy.
 */
import sharp from "sharp";
import type { Canvas } from "./blend.ts";
import type { Point, Rect } from "./masks.ts";
import { restoreDetail } from "./upscale.ts";

export interface Framing {
  /** canvas = photo * scale + offset */
  scale: number;
  offsetX: number;
  offsetY: number;
  /** The canvas rectangle covered by real photo pixels. */
  photoRect: { x: number; y: number; w: number; h: number };
  width: number;
  height: number;
  /**
   * How the chosen camera's framing was changed to fit the photo: "wider"
   * (the face would have been enlarged past MAX_FACE_UPSCALE), "closer" (the
   * photo ends too close below the face for the camera's wide framing).
   */
  adjusted?: "wider" | "closer";
}

export interface FramingInput {
  photoW: number;
  photoH: number;
  eye: Point;
  faceWidth: number;
  outW: number;
  outH: number;
  /** Face width as a fraction of the output width (from the camera option). */
  targetFaceWidth?: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * Largest enlargement of the photo a chosen close framing may ask for: past
 * ~1.6x an upscaled face reads as soft even with restoreDetail (measured in
 * bench/framing-quality.bench.ts). Only the bottom rule may go further.
 */
export const MAX_FACE_UPSCALE = 1.6;

/** Eyes this far down the frame at most (a photo ending close below the face). */
const EYES_LOWEST = 0.47;
/** Largest face width (fraction of the frame width) the bottom rule may enlarge to. */
const MAX_FILL_FACE = 0.85;
/** With no camera chosen, the face may grow to this width (of the frame) to put the eyes at 40%. */
const MAX_AT40_FACE = 0.72;
/** Largest enlargement at all. */
const MAX_SCALE = 4;
/**
 * The enlargement limits hold for the full-size frame; a smaller frame (the
 * 540x960 preview) is framed like the full-size result, only smaller.
 */
const FULL_WIDTH = 1080;

/**
 * The framing of the photo: the camera's face size (or, with no camera, the
 * photo covering the frame with a portrait-sized face), widened to
 * MAX_FACE_UPSCALE, then enlarged as far as needed for the photo's bottom to
 * reach the frame's bottom with the eyes no lower than EYES_LOWEST (unless the
 * face would then be wider than MAX_FILL_FACE of the frame: a photo cut just
 * below the chin keeps a feathered bottom edge).
 */
export function planFraming(i: FramingInput): Framing {
  const { photoW, photoH, eye, faceWidth, outW, outH } = i;
  const wanted = i.targetFaceWidth ? (i.targetFaceWidth * outW) / faceWidth : undefined;
  let scale: number;
  const full = outW / FULL_WIDTH;
  if (wanted) scale = Math.min(wanted, MAX_FACE_UPSCALE * full);
  else {
    const cover = Math.max(outW / photoW, outH / photoH);
    scale = clamp(cover, (0.22 * outW) / faceWidth, (0.62 * outW) / faceWidth);
  }
  // The bottom rule: the photo's bottom edge on the frame's bottom edge.
  const below = photoH - eye[1];
  if (below > 0 && below * scale < (wanted ? 1 - EYES_LOWEST : 0.6) * outH) {
    const lowest = Math.min((1 - EYES_LOWEST) * outH / below, (MAX_FILL_FACE * outW) / faceWidth);
    // With no camera chosen, the eyes at 40% when the face may grow enough for it.
    const at40 = wanted ? 0 : Math.min(0.6 * outH / below, (MAX_AT40_FACE * outW) / faceWidth);
    scale = Math.max(scale, lowest, at40);
  }
  scale = Math.min(scale, MAX_SCALE * full);
  const adjusted = !wanted
    ? undefined
    : scale < wanted * 0.95
    ? "wider"
    : scale > wanted * 1.05
    ? "closer"
    : undefined;
  const sw = Math.round(photoW * scale), sh = Math.round(photoH * scale);
  scale = sw / photoW;
  let ox = outW / 2 - eye[0] * scale;
  let oy = 0.4 * outH - eye[1] * scale;
  // Prefer real pixels over exact placement, within portrait limits.
  if (sw >= outW) ox = clamp(ox, outW - sw, 0);
  if (sh >= outH) oy = clamp(oy, outH - sh, 0);
  else if (oy + sh < outH) oy = outH - sh; // the bottom first (the eye clamp below limits it)
  const ex = eye[0] * scale + ox, ey = eye[1] * scale + oy;
  ox += clamp(ex, 0.3 * outW, 0.7 * outW) - ex;
  oy += clamp(ey, 0.3 * outH, EYES_LOWEST * outH) - ey;
  ox = Math.round(ox);
  oy = Math.round(oy);
  if (oy + sh < outH && oy + sh >= outH - 2) oy = outH - sh; // no rounding sliver at the bottom
  const x0 = Math.max(0, ox), y0 = Math.max(0, oy);
  const x1 = Math.min(outW, ox + sw), y1 = Math.min(outH, oy + sh);
  return {
    scale,
    offsetX: ox,
    offsetY: oy,
    photoRect: { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) },
    width: outW,
    height: outH,
    ...(adjusted ? { adjusted } : {}),
  };
}

/** A user-facing note when the chosen camera's framing was changed to fit the photo. */
export function framingNote(f: Framing, cameraLabel: string): string | undefined {
  if (f.adjusted === "wider") {
    return `${cameraLabel} was framed wider: the photo's resolution is too low for a closer framing of the face`;
  }
  if (f.adjusted === "closer") {
    return `${cameraLabel} was framed closer: the photo ends too close below the face for a wider framing`;
  }
  return undefined;
}

export function coversFrame(f: Framing): boolean {
  const r = f.photoRect;
  return r.x === 0 && r.y === 0 && r.w === f.width && r.h === f.height;
}

/** Feather widths for photo edges inside the frame: ~8% of the frame height (rows) and width (columns). */
export function featherBands(width: number, height: number): { bx: number; by: number } {
  return { bx: Math.max(1, Math.round(0.08 * width)), by: Math.max(1, Math.round(0.08 * height)) };
}

/**
 * Opacity of the photo at canvas pixel (x, y): 0 outside `rect`, ramping
 * smoothly to 1 over the feather bands from each edge of `rect` that lies
 * inside the frame (edges on the frame border stay hard).
 */
export function edgeFade(rect: Rect, width: number, height: number, x: number, y: number): number {
  const { bx, by } = featherBands(width, height);
  const px = x + 0.5, py = y + 0.5;
  if (px < rect.x || py < rect.y || px > rect.x + rect.w || py > rect.y + rect.h) return 0;
  let t = 1;
  if (rect.x > 0) t = Math.min(t, (px - rect.x) / bx);
  if (rect.x + rect.w < width) t = Math.min(t, (rect.x + rect.w - px) / bx);
  if (rect.y > 0) t = Math.min(t, (py - rect.y) / by);
  if (rect.y + rect.h < height) t = Math.min(t, (rect.y + rect.h - py) / by);
  return t >= 1 ? 1 : t * t * (3 - 2 * t);
}

/** A raw buffer from a sharp pipeline, checked to have exactly `channels` channels. */
export async function rawOf(p: ReturnType<typeof sharp>, channels: 1 | 3, what: string): Promise<Canvas> {
  const { data, info } = await p.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== channels || data.length !== info.width * info.height * channels) {
    throw new Error(`${what}: expected ${channels} channels, got ${info.channels}`);
  }
  return {
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
    width: info.width,
    height: info.height,
  };
}

/** One resize from the decoded photo to the output scale (mostly an enlargement). */
const FRAME_KERNEL = "lanczos3";

/** The scaled photo's size for a framing (as planFraming rounds it). */
function scaledSize(photo: { width: number; height: number }, scale: number): [number, number] {
  const sw = Math.round(photo.width * scale);
  return [sw, Math.round(photo.height * (sw / photo.width))];
}

/**
 * The photo resized to cover the output, started before the face is found:
 * most portraits are framed at exactly this scale (see planFraming), and the
 * enlargement then runs on a libvips thread while face detection runs on the
 * worker's own. renderFramed uses it when the framing's scale matches.
 */
export function coverScaled(photo: Canvas, outW: number, outH: number): Promise<Canvas> {
  const [sw, sh] = scaledSize(photo, Math.max(outW / photo.width, outH / photo.height));
  const raw = { raw: { width: photo.width, height: photo.height, channels: 3 as const } };
  const resized = rawOf(
    sharp(photo.data, raw).resize(sw, sh, { kernel: FRAME_KERNEL }),
    3,
    "cover-scaled photo",
  );
  return resized.then((c) => restoreDetail(c, sw / photo.width));
}

/**
 * Renders the framed canvas (RGB raw) from the decoded photo. Where the photo
 * does not cover the frame, the gap shows a blurred, darkened copy and the
 * photo's inner edges fade into it (no hard line, no floating bust).
 * `prescaled` (from coverScaled) is used when it has the framing's scale.
 */
export async function renderFramed(
  photo: Canvas,
  f: Framing,
  prescaled?: Promise<Canvas>,
): Promise<Canvas> {
  const raw = { raw: { width: photo.width, height: photo.height, channels: 3 as const } };
  const r = f.photoRect;
  // planFraming rounds the scaled width and height separately: never resize
  // smaller than the rectangle it placed (at most 1 px of stretch).
  const [fw, fh] = scaledSize(photo, f.scale);
  const sw = Math.max(fw, r.x - f.offsetX + r.w);
  const sh = Math.max(fh, r.y - f.offsetY + r.h);
  const pre = await prescaled?.catch(() => undefined);
  if (pre && pre.width === sw && pre.height === sh && coversFrame(f)) {
    // The frame is a window on the cover-scaled photo: copy its rows.
    const out = new Uint8Array(f.width * f.height * 3);
    const left = r.x - f.offsetX, top = r.y - f.offsetY;
    for (let y = 0; y < f.height; y++) {
      const src = ((top + y) * sw + left) * 3;
      out.set(pre.data.subarray(src, src + f.width * 3), y * f.width * 3);
    }
    return { data: out, width: f.width, height: f.height };
  }
  const photoPart = (top: number, height: number) =>
    rawOf(
      sharp(photo.data, raw)
        .resize(sw, sh, { kernel: FRAME_KERNEL })
        .extract({ left: r.x - f.offsetX, top: r.y - f.offsetY + top, width: r.w, height }),
      3,
      "framed photo",
    );
  const covers = coversFrame(f);
  const { bx, by } = featherBands(f.width, f.height);
  // libvips runs each pipeline on one thread (sharp's default concurrency is 1
  // on glibc): the enlargement, the slowest step, runs as two bands at once.
  const half = r.h >= 64 ? Math.floor(r.h / 2) : r.h;
  const [top, bottom, fill] = await Promise.all([
    photoPart(0, half),
    half < r.h ? photoPart(half, r.h - half) : undefined,
    covers ? undefined : frameFill(photo, f, r.x === 0 && r.w === f.width ? by : -1),
  ]);
  const visible: Canvas = { data: top.data, width: r.w, height: r.h };
  if (bottom) {
    visible.data = new Uint8Array(r.w * r.h * 3);
    visible.data.set(top.data);
    visible.data.set(bottom.data, top.data.length);
  }
  await restoreDetail(visible, f.scale);
  if (!fill) return visible;
  // Photo over the fill: plain copies inside, a smooth ramp across inner edges.
  const out = fill, v = visible.data, W = f.width;
  const left = r.x > 0 ? bx : 0, right = r.x + r.w < W ? bx : 0;
  for (let y = r.y; y < r.y + r.h; y++) {
    const src = (y - r.y) * r.w * 3, dst = (y * W + r.x) * 3;
    const nearRow = (r.y > 0 && y - r.y < by) || (r.y + r.h < f.height && r.y + r.h - y <= by);
    if (!nearRow && left === 0 && right === 0) {
      out.set(v.subarray(src, src + r.w * 3), dst);
      continue;
    }
    for (let x = r.x; x < r.x + r.w; x++) {
      const inner = !nearRow && x - r.x >= left && r.x + r.w - x > right;
      const a = inner ? 1 : edgeFade(r, f.width, f.height, x, y);
      const s = src + (x - r.x) * 3, o = dst + (x - r.x) * 3;
      for (let c = 0; c < 3; c++) out[o + c] = Math.round(out[o + c] + (v[s + c] - out[o + c]) * a);
    }
  }
  return { data: out, width: f.width, height: f.height };
}

/**
 * The frame fill: the photo as framed, its edge pixels stretched out to the
 * frame's borders, blurred and darkened, made at 1/8 size and enlarged once
 * (a blurred copy of the whole photo put a ghost of the head above it). When
 * the photo spans the frame width (`band` >= 0: the feather band height), only
 * the rows above and below the photo (plus the band) are enlarged: the photo
 * covers the rest.
 */
async function frameFill(photo: Canvas, f: Framing, band: number): Promise<Uint8Array> {
  const raw = { raw: { width: photo.width, height: photo.height, channels: 3 as const } };
  const smallW = Math.max(8, Math.round(f.width / 8)), smallH = Math.max(8, Math.round(f.height / 8));
  const k = smallW / f.width, pr = f.photoRect;
  // The visible photo at 1/8 size, then its edges copied out to the frame.
  const x0 = Math.min(smallW - 1, Math.round(pr.x * k)), y0 = Math.min(smallH - 1, Math.round(pr.y * k));
  const w = Math.max(1, Math.min(smallW - x0, Math.round(pr.w * k)));
  const h = Math.max(1, Math.min(smallH - y0, Math.round(pr.h * k)));
  const left = Math.min(photo.width - 1, Math.max(0, Math.round((pr.x - f.offsetX) / f.scale)));
  const top = Math.min(photo.height - 1, Math.max(0, Math.round((pr.y - f.offsetY) / f.scale)));
  const visible = await rawOf(
    sharp(photo.data, raw).extract({
      left,
      top,
      width: Math.max(1, Math.min(photo.width - left, Math.round(pr.w / f.scale))),
      height: Math.max(1, Math.min(photo.height - top, Math.round(pr.h / f.scale))),
    }).resize(w, h, { fit: "fill" }),
    3,
    "frame fill",
  );
  const small = await rawOf(
    sharp(visible.data, { raw: { width: w, height: h, channels: 3 } })
      .extend({ left: x0, top: y0, right: smallW - x0 - w, bottom: smallH - y0 - h, extendWith: "copy" })
      .blur(10)
      .linear(0.55, 0),
    3,
    "frame fill",
  );
  const r = f.photoRect, W = f.width, H = f.height;
  const rows: [number, number][] = band < 0
    ? [[0, H]]
    : [[0, Math.min(H, r.y + band)], [Math.max(0, r.y + r.h - band - 1), H]];
  const out = new Uint8Array(W * H * 3);
  await Promise.all(
    rows.filter(([a, b]) => b > a).map(async ([a, b]) => {
      const part = await rawOf(
        sharp(small.data, { raw: { width: smallW, height: smallH, channels: 3 } })
          .resize(W, H, { kernel: "cubic" })
          .extract({ left: 0, top: a, width: W, height: b - a }),
        3,
        "frame fill",
      );
      out.set(part.data, a * W * 3);
    }),
  );
  return out;
}

export function mapPoints(pts: Point[], f: Framing): Point[] {
  return pts.map((p) => [p[0] * f.scale + f.offsetX, p[1] * f.scale + f.offsetY]);
}
