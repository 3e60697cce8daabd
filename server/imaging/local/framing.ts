/**
 * 9:16 framing: the photo is scaled (never stretched) so the face has a
 * portrait size, placed with the eyes about 40% from the top. The framing is
 * chosen from what the photo holds: a close framing that would enlarge the
 * face more than its resolution supports is widened, and the photo's bottom
 * edge (where the person is cut off) always reaches the frame's bottom, so no
 * bust floats mid-frame. A framing that leaves part of the frame empty is
 * enlarged a little more when that fills it (COVER_STRETCH); otherwise the
 * gap shows the photo's own edges extended (extendEdges), as more of its
 * background, and the result's note says so.
 */
import sharp from "sharp";
import type { Canvas } from "./blend.ts";
import type { Point, Rect } from "./masks.ts";
import { keyLabel } from "./capabilities.ts";
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
   * (the face would have been enlarged past what the photo's resolution
   * supports), "closer" (the photo ends too close below the face for the
   * camera's wide framing), "narrow" (the photo is too narrow around the
   * person: a wider framing would show the person cut off by its sides),
   * "fill" (the photo fills the frame only at a closer framing: see
   * COVER_STRETCH).
   */
  adjusted?: "wider" | "closer" | "narrow" | "fill";
  /** The chosen camera's framing came out the same as with no camera chosen. */
  asPhotographed?: boolean;
  /**
   * The enlargement at full size, set when the cut-edge rules took it past
   * SOFT_FACE_UPSCALE: the face then looks soft, and the result's note says why.
   */
  softFace?: number;
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
  /**
   * The photo's RGB pixels (photoW x photoH): when given, the enlargement
   * limit follows how sharp the face really is (see faceDetailScale).
   */
  pixels?: Uint8Array;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * Largest enlargement of a sharp face the framing chooses by itself (a
 * camera's face size, or with no camera the portrait size): past ~1.6x an
 * upscaled face reads as soft even with restoreDetail (measured in
 * bench/framing-quality.bench.ts). A face softer than its pixel count (see
 * faceDetailScale) gets proportionally less. Only the cut-edge rules (the
 * photo's bottom and, where the person reaches them, its sides on the frame's
 * borders) may go further.
 */
export const MAX_FACE_UPSCALE = 1.6;
/**
 * A photo enlarged more than this (at full size; only the cut-edge rules go
 * past MAX_FACE_UPSCALE) gives a clearly soft face, and the result's note
 * says so: the user can upload a larger photo. (A 3:4 photo 450-680 px wide
 * is enlarged 2.1-3.1x to reach the frame's bottom: soft-ish, and common
 * enough that a note on each of those results would be noise.)
 */
export const SOFT_FACE_UPSCALE = 3.5;

/** Eyes this far down the frame at most (a photo ending close below the face). */
const EYES_LOWEST = 0.47;
/** The eyes' horizontal range in the frame. */
const EYES_LEFTMOST = 0.3, EYES_RIGHTMOST = 0.7;
/** Largest face width (fraction of the frame width) the cut-edge rules may enlarge to. */
const MAX_FILL_FACE = 0.85;
/** With no camera chosen, the face may grow to this width (of the frame) to put the eyes at 40%. */
const MAX_AT40_FACE = 0.72;
/**
 * How far (in face widths) from the face's centre a person's shoulders and
 * arms may reach: a photo side closer than this cuts the person off. (The
 * shoulders span ~2.7 face widths, the arms hanging beside them ~4.)
 */
const BODY_REACH = 2;
/**
 * A framing that leaves part of the frame without photo is enlarged up to
 * this much more when that fills the frame: a 3:4 portrait framed with its
 * bottom on the frame's needs 1.17-1.2x more to fill 9:16, and that face
 * looks hardly softer, while an extended background above the head (however
 * smooth) reads as an edited image.
 */
const COVER_STRETCH = 1.25;
/** Largest enlargement at all. */
const MAX_SCALE = 4;
/**
 * The enlargement limits hold for the full-size frame; a smaller frame (the
 * 540x960 preview) is framed like the full-size result, only smaller.
 */
const FULL_WIDTH = 1080;

/**
 * How many pixels of the photo one real detail of the face spans: 1 for a
 * sharp face, ~2 for a face that was enlarged 2x (or is out of focus) before
 * it reached us. Measured on the luma of the inner face as the energy of the
 * finest band of a 2x2 box pyramid over the next band's: 0.22 or more on the
 * sharp test portraits, about 0.2 on copies softened 1.5x, 0.15-0.19 at 2x
 * and less at 3x (bench/framing-quality.bench.ts prints the resulting scales).
 */
export function faceDetailScale(
  pixels: Uint8Array,
  photoW: number,
  photoH: number,
  eye: Point,
  faceWidth: number,
): number {
  const side = Math.round(faceWidth);
  const x0 = clamp(Math.round(eye[0] - side / 2), 0, photoW - 1);
  const y0 = clamp(Math.round(eye[1] - 0.3 * side), 0, photoH - 1);
  // Every other pixel for large faces: their enlargement is small anyway.
  const step = side > 320 ? 2 : 1;
  const w = Math.floor(Math.min(side, photoW - x0) / step),
    h = Math.floor(Math.min(side, photoH - y0) / step);
  if (w < 16 || h < 16) return 1;
  let luma: Float32Array = new Float32Array(w * h);
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      const k = ((y0 + j * step) * photoW + x0 + i * step) * 3;
      luma[j * w + i] = 0.299 * pixels[k] + 0.587 * pixels[k + 1] + 0.114 * pixels[k + 2];
    }
  }
  const bands: number[] = [];
  let cw = w, ch = h;
  for (let level = 0; level < 2; level++) {
    const [e, half, hw, hh] = finestBand(luma, cw, ch);
    bands.push(e);
    luma = half;
    cw = hw;
    ch = hh;
  }
  if (bands[1] <= 0) return step;
  const ratio = bands[0] / bands[1];
  // Piecewise linear through the measured points (ratio -> detail scale).
  const pts: [number, number][] = [[0.225, 1], [0.21, 1.5], [0.18, 2], [0.14, 3]];
  let d = ratio >= pts[0][0] ? 1 : 3;
  for (let k = 1; k < pts.length; k++) {
    const [r0, d0] = pts[k - 1], [r1, d1] = pts[k];
    if (ratio <= r0 && ratio >= r1) d = d0 + ((r0 - ratio) / (r0 - r1)) * (d1 - d0);
  }
  return step > 1 ? Math.max(1, d * step / 2) : d;
}

/**
 * The mean squared difference between `a` (w x h) and its 2x2 box halving
 * enlarged back bilinearly (the detail finer than 2 px), and the halving.
 */
function finestBand(a: Float32Array, w: number, h: number): [number, Float32Array, number, number] {
  const sw = w >> 1, sh = h >> 1;
  const half = new Float32Array(sw * sh);
  for (let j = 0; j < sh; j++) {
    for (let i = 0; i < sw; i++) {
      const k = 2 * j * w + 2 * i;
      half[j * sw + i] = (a[k] + a[k + 1] + a[k + w] + a[k + w + 1]) / 4;
    }
  }
  let e = 0, n = 0;
  for (let y = 1; y < 2 * sh - 1; y++) {
    const v = Math.min(sh - 2, Math.max(0, (y - 0.5) / 2)), v0 = Math.floor(v), tv = v - v0;
    for (let x = 1; x < 2 * sw - 1; x++) {
      const u = Math.min(sw - 2, Math.max(0, (x - 0.5) / 2)), u0 = Math.floor(u), tu = u - u0;
      const k = v0 * sw + u0;
      const up = (half[k] * (1 - tu) + half[k + 1] * tu) * (1 - tv) +
        (half[k + sw] * (1 - tu) + half[k + sw + 1] * tu) * tv;
      e += (a[y * w + x] - up) ** 2;
      n++;
    }
  }
  return [n ? e / n : 0, half, sw, sh];
}

/**
 * The framing of the photo. The framing's own choice (the camera's face size,
 * or with no camera the photo covering the frame with a portrait-sized face)
 * enlarges the face at most MAX_FACE_UPSCALE / faceDetailScale. Then the
 * cut-edge rules enlarge it as far as needed, with the face at most
 * MAX_FILL_FACE of the frame wide: the photo's bottom edge reaches the frame's
 * bottom with the eyes no lower than EYES_LOWEST, and a side of the photo the
 * person reaches (within BODY_REACH face widths of the face) lies on the
 * frame's side, so no cut-off edge of the person shows against a new backdrop.
 */
export function planFraming(i: FramingInput): Framing {
  const { photoW, photoH, eye, faceWidth, outW, outH } = i;
  const wanted = i.targetFaceWidth ? (i.targetFaceWidth * outW) / faceWidth : undefined;
  const full = outW / FULL_WIDTH;
  let scale = wanted ?? clamp(
    Math.max(outW / photoW, outH / photoH),
    (0.22 * outW) / faceWidth,
    (0.62 * outW) / faceWidth,
  );
  // The framing's own enlargement limit, measured only when it could matter.
  let maxUp = MAX_FACE_UPSCALE * full;
  if (scale > maxUp / 3 && i.pixels) {
    maxUp /= faceDetailScale(i.pixels, photoW, photoH, eye, faceWidth);
  }
  scale = Math.min(scale, maxUp);
  const chosen = scale;
  // The cut-edge rules, in the order they are reported.
  const fillFace = (MAX_FILL_FACE * outW) / faceWidth;
  const below = photoH - eye[1];
  let bottom = 0;
  if (below > 0 && below * scale < (wanted ? 1 - EYES_LOWEST : 0.6) * outH) {
    bottom = Math.min((1 - EYES_LOWEST) * outH / below, fillFace);
    // With no camera chosen, the eyes at 40% when the face may grow enough for it.
    if (!wanted) {
      bottom = Math.max(bottom, Math.min(0.6 * outH / below, (MAX_AT40_FACE * outW) / faceWidth, maxUp));
    }
  }
  const reach = BODY_REACH * faceWidth;
  const left = eye[0] < reach, right = photoW - eye[0] < reach;
  let sides = 0;
  if (left) sides = Math.max(sides, EYES_LEFTMOST * outW / eye[0]);
  if (right) sides = Math.max(sides, (1 - EYES_RIGHTMOST) * outW / (photoW - eye[0]));
  if (left && right) sides = Math.max(sides, outW / photoW);
  sides = Math.min(sides, fillFace);
  const ruled = Math.min(Math.max(scale, bottom, sides), MAX_SCALE * full);
  scale = ruled;
  // The photo fills the frame when a little more enlargement does it (see COVER_STRETCH).
  const cover = Math.max(outW / photoW, outH / photoH);
  if (cover > scale && cover <= scale * COVER_STRETCH && cover <= Math.max(fillFace, scale)) {
    scale = Math.min(cover, MAX_SCALE * full);
  }
  const adjusted = !wanted
    ? undefined
    : scale < wanted * 0.95
    ? "wider"
    : scale <= wanted * 1.05
    ? undefined
    : ruled <= wanted * 1.05
    ? "fill"
    : ruled > chosen * 1.001 && sides > bottom
    ? "narrow"
    : "closer";
  const sw = Math.round(photoW * scale), sh = Math.round(photoH * scale);
  scale = sw / photoW;
  let ox = outW / 2 - eye[0] * scale;
  let oy = 0.4 * outH - eye[1] * scale;
  // Prefer real pixels over exact placement, within portrait limits.
  if (sw >= outW) ox = clamp(ox, outW - sw, 0);
  if (sh >= outH) oy = clamp(oy, outH - sh, 0);
  else if (oy + sh < outH) oy = outH - sh; // the bottom first (the eye clamp below limits it)
  // The sides the person reaches on the frame's borders.
  if (left && (!right || sw >= outW)) ox = Math.min(ox, 0);
  if (right && (!left || sw >= outW)) ox = Math.max(ox, outW - sw);
  const ex = eye[0] * scale + ox, ey = eye[1] * scale + oy;
  ox += clamp(ex, EYES_LEFTMOST * outW, EYES_RIGHTMOST * outW) - ex;
  oy += clamp(ey, 0.3 * outH, EYES_LOWEST * outH) - ey;
  // The top rule (and the same for the sides): a photo that covers the frame
  // leaves no edge inside it, even when the eyes' limits would move it so (a
  // band of extended background reads as an edited image; eyes above 30% do not).
  if (sw >= outW) ox = clamp(ox, outW - sw, 0);
  if (sh >= outH) oy = clamp(oy, outH - sh, 0);
  ox = Math.round(ox);
  oy = Math.round(oy);
  // No rounding sliver at the bottom or at a side the person reaches.
  if (oy + sh < outH && oy + sh >= outH - 2) oy = outH - sh;
  if (left && ox > 0 && ox <= 2) ox = 0;
  if (right && ox + sw < outW && ox + sw >= outW - 2) ox = outW - sw;
  const x0 = Math.max(0, ox), y0 = Math.max(0, oy);
  const x1 = Math.min(outW, ox + sw), y1 = Math.min(outH, oy + sh);
  const same = (g: Framing) => g.scale === scale && g.offsetX === ox && g.offsetY === oy;
  const enlarged = scale / full;
  return {
    scale,
    offsetX: ox,
    offsetY: oy,
    photoRect: { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) },
    width: outW,
    height: outH,
    ...(adjusted ? { adjusted } : {}),
    ...(adjusted && same(planFraming({ ...i, targetFaceWidth: undefined })) ? { asPhotographed: true } : {}),
    ...(enlarged > SOFT_FACE_UPSCALE ? { softFace: enlarged } : {}),
  };
}

const ADJUSTED_REASON: Readonly<Record<NonNullable<Framing["adjusted"]>, string>> = {
  wider: "the photo's resolution is too low for a closer framing of the face",
  closer: "the photo ends too close below the face for a wider framing",
  narrow: "the photo is too narrow for a wider framing without showing the person cut off at its sides",
  fill: "the photo is too small around the person to fill a wider frame",
};

/** The edges of the photo inside the frame, where renderFramed extends it, as words. */
function extendedEdges(f: Framing): string | undefined {
  const r = f.photoRect;
  const top = r.y > 0, bottom = r.y + r.h < f.height;
  const sides = (r.x > 0 ? 1 : 0) + (r.x + r.w < f.width ? 1 : 0);
  const parts = [
    top && bottom ? "above and below it" : top ? "above it" : bottom ? "below it" : "",
    sides === 2 ? "at both sides" : sides === 1 ? "at one side" : "",
  ].filter(Boolean);
  return parts.length ? parts.join(" and ") : undefined;
}

/**
 * A user-facing note when the face had to be enlarged past what the photo's
 * resolution supports (see Framing.softFace), with the enlargement rounded
 * down to a tenth.
 */
export function softFaceNote(f: Framing): string | undefined {
  if (!f.softFace) return undefined;
  const times = (Math.floor(f.softFace * 10) / 10).toFixed(1);
  return `The photo's resolution is low for this framing: the face was enlarged ${times}x to fill the frame ` +
    `and looks soft; a larger photo gives a sharper result`;
}

/**
 * A user-facing note when the chosen camera's framing was changed to fit the
 * photo (`cameraLabel`: the camera chosen, if any); when that framing is the
 * one no camera gives and the camera changes nothing else (`otherEffect`:
 * e.g. its background blur), the camera was not applied at all and the note
 * says so. When the photo does not fill the frame (with or without a camera),
 * the note says where its background was extended, unless a scene's backdrop
 * (`backdrop`) replaces that background: the extension is then never seen.
 */
export function framingNote(
  f: Framing,
  cameraLabel?: string,
  otherEffect = false,
  backdrop = false,
): string | undefined {
  const edges = backdrop ? undefined : extendedEdges(f);
  const extended = edges &&
    `the photo's background was extended ${edges}: the photo alone does not fill the 9:16 frame at a framing it supports`;
  if (!f.adjusted || cameraLabel === undefined) {
    return extended && extended[0].toUpperCase() + extended.slice(1);
  }
  const reason = ADJUSTED_REASON[f.adjusted];
  const note = f.asPhotographed && !otherEffect
    ? `${keyLabel("cameraLens")} "${cameraLabel}" was not applied: ${reason}`
    : `${cameraLabel} was framed ${f.adjusted === "wider" ? "wider" : "closer"}: ${reason}`;
  return extended ? `${note}; ${extended}` : note;
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
 * Undefined when the framing will hardly ever be the cover: a photo wider
 * than it is tall that would be enlarged past MAX_FACE_UPSCALE (its cover
 * crops most of it away; portrait photos are filled thanks to COVER_STRETCH).
 */
export function coverScaled(photo: Canvas, outW: number, outH: number): Promise<Canvas | undefined> {
  const cover = Math.max(outW / photo.width, outH / photo.height);
  if (photo.width > photo.height && cover > MAX_FACE_UPSCALE * outW / FULL_WIDTH) {
    return Promise.resolve(undefined);
  }
  const [sw, sh] = scaledSize(photo, cover);
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
 * does not cover the frame, the gap shows the photo's own edge extended
 * outwards (see extendEdges): the photo keeps its edges, no band or fade.
 * `prescaled` (from coverScaled) is used when it has the framing's scale.
 */
export async function renderFramed(
  photo: Canvas,
  f: Framing,
  prescaled?: Promise<Canvas | undefined>,
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
  // libvips runs each pipeline on one thread (sharp's default concurrency is 1
  // on glibc): the enlargement, the slowest step, runs as two bands at once.
  const half = r.h >= 64 ? Math.floor(r.h / 2) : r.h;
  const [top, bottom] = await Promise.all([
    photoPart(0, half),
    half < r.h ? photoPart(half, r.h - half) : undefined,
  ]);
  const visible: Canvas = { data: top.data, width: r.w, height: r.h };
  if (bottom) {
    visible.data = new Uint8Array(r.w * r.h * 3);
    visible.data.set(top.data);
    visible.data.set(bottom.data, top.data.length);
  }
  await restoreDetail(visible, f.scale);
  if (coversFrame(f)) return visible;
  const W = f.width, out = new Uint8Array(W * f.height * 3);
  for (let y = 0; y < r.h; y++) {
    out.set(visible.data.subarray(y * r.w * 3, (y + 1) * r.w * 3), ((r.y + y) * W + r.x) * 3);
  }
  extendEdges(out, W, f.height, r);
  return { data: out, width: W, height: f.height };
}

/** Rows (or columns) of the photo's edge averaged into the profile that is extended. */
const EDGE_ROWS = 3;
/**
 * How fast the extension loses detail: at distance d from the photo's edge
 * it is the edge profile blurred over about EXTEND_BLUR x d pixels each way,
 * so it starts as the edge itself (no seam) and turns into the edge's broad
 * colours further out, as an out-of-focus background does.
 */
const EXTEND_BLUR = 0.75;
/**
 * The extension's least blur radius: the edge's pixel noise drawn out as
 * vertical streaks read as spikes along the seam.
 */
const EXTEND_MIN_BLUR = 3;

/**
 * Fills the canvas outside `r` (which holds the photo) with the photo's own
 * edges extended: above and below the photo each column continues its edge
 * colour, smoothed sideways more the further it is from the edge; then left
 * and right of it each row does the same from the (already extended) side
 * columns. A blurred, darkened copy of the photo here read as an edited image
 * (a grey or smeared band cutting off the hair); this reads as more of the
 * photo's background.
 */
export function extendEdges(out: Uint8Array, W: number, H: number, r: Rect): void {
  if (r.w <= 0 || r.h <= 0) return;
  // Vertical: rows above and below r, over r's columns.
  const col = (x: number, y: number) => (y * W + x) * 3;
  const fromEdge = (edgeY: number, dir: -1 | 1, gap: number) => {
    const prof = edgeProfile(r.w, (i, k) => col(r.x + i, edgeY - dir * k), out, Math.min(EDGE_ROWS, r.h));
    for (let d = 1; d <= gap; d++) {
      const line = smoothed(prof, r.w, EXTEND_MIN_BLUR + Math.round(EXTEND_BLUR * d));
      out.set(line, col(r.x, edgeY + dir * d));
    }
  };
  if (r.y > 0) fromEdge(r.y, -1, r.y);
  if (r.y + r.h < H) fromEdge(r.y + r.h - 1, 1, H - r.y - r.h);
  // Horizontal: columns left and right of r, over the full height.
  const sideways = (edgeX: number, dir: -1 | 1, gap: number) => {
    const prof = edgeProfile(H, (i, k) => col(edgeX - dir * k, i), out, Math.min(EDGE_ROWS, r.w));
    for (let d = 1; d <= gap; d++) {
      const line = smoothed(prof, H, EXTEND_MIN_BLUR + Math.round(EXTEND_BLUR * d));
      const x = edgeX + dir * d;
      for (let y = 0; y < H; y++) {
        const o = col(x, y);
        out[o] = line[3 * y];
        out[o + 1] = line[3 * y + 1];
        out[o + 2] = line[3 * y + 2];
      }
    }
  };
  if (r.x > 0) sideways(r.x, -1, r.x);
  if (r.x + r.w < W) sideways(r.x + r.w - 1, 1, W - r.x - r.w);
}

/** The mean of `k` lines along an edge: n RGB pixels, `at(i, j)` the index of pixel i in line j. */
function edgeProfile(
  n: number,
  at: (i: number, j: number) => number,
  px: Uint8Array,
  k: number,
): Float32Array {
  const p = new Float32Array(n * 3);
  for (let j = 0; j < k; j++) {
    for (let i = 0; i < n; i++) {
      const s = at(i, j);
      p[3 * i] += px[s] / k;
      p[3 * i + 1] += px[s + 1] / k;
      p[3 * i + 2] += px[s + 2] / k;
    }
  }
  return p;
}

/**
 * An RGB line of n pixels smoothed by two box passes of radius `rad` (a
 * triangle, no blocky steps), the ends repeated beyond the line.
 */
function smoothed(p: Float32Array, n: number, rad: number): Uint8Array {
  let a = p;
  if (rad > 0) a = box(box(p, n, rad), n, rad);
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < 3 * n; i++) out[i] = Math.round(a[i]);
  return out;
}

function box(p: Float32Array, n: number, rad: number): Float32Array {
  // Prefix sums per channel; indices outside the line read its end pixels.
  const sum = new Float64Array((n + 1) * 3);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) sum[3 * (i + 1) + c] = sum[3 * i + c] + p[3 * i + c];
  }
  const out = new Float32Array(n * 3), w = 2 * rad + 1;
  for (let i = 0; i < n; i++) {
    const lo = i - rad, hi = i + rad;
    const a = Math.max(0, lo), b = Math.min(n - 1, hi);
    for (let c = 0; c < 3; c++) {
      let s = sum[3 * (b + 1) + c] - sum[3 * a + c];
      if (lo < 0) s -= lo * p[c];
      if (hi > n - 1) s += (hi - n + 1) * p[3 * (n - 1) + c];
      out[3 * i + c] = s / w;
    }
  }
  return out;
}

export function mapPoints(pts: Point[], f: Framing): Point[] {
  return pts.map((p) => [p[0] * f.scale + f.offsetX, p[1] * f.scale + f.offsetY]);
}
