/**
 * 9:16 framing: the photo is scaled (never stretched) so the face has a
 * portrait size, placed with the eyes about 40% from the top, and where it
 * does not cover the frame the gap is filled with a blurred, darkened copy.
 */
import sharp from "sharp";
import type { Canvas } from "./blend.ts";
import type { Point } from "./masks.ts";

export interface Framing {
  /** canvas = photo * scale + offset */
  scale: number;
  offsetX: number;
  offsetY: number;
  /** The canvas rectangle covered by real photo pixels. */
  photoRect: { x: number; y: number; w: number; h: number };
  width: number;
  height: number;
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

export function planFraming(i: FramingInput): Framing {
  const { photoW, photoH, eye, faceWidth, outW, outH } = i;
  let scale: number;
  if (i.targetFaceWidth) {
    scale = (i.targetFaceWidth * outW) / faceWidth;
  } else {
    const cover = Math.max(outW / photoW, outH / photoH);
    scale = clamp(cover, (0.22 * outW) / faceWidth, (0.62 * outW) / faceWidth);
  }
  scale = Math.min(scale, 4);
  const sw = Math.round(photoW * scale), sh = Math.round(photoH * scale);
  scale = sw / photoW;
  let ox = outW / 2 - eye[0] * scale;
  let oy = 0.4 * outH - eye[1] * scale;
  // Prefer real pixels over exact placement, within portrait limits.
  if (sw >= outW) ox = clamp(ox, outW - sw, 0);
  if (sh >= outH) oy = clamp(oy, outH - sh, 0);
  const ex = eye[0] * scale + ox, ey = eye[1] * scale + oy;
  ox += clamp(ex, 0.3 * outW, 0.7 * outW) - ex;
  oy += clamp(ey, 0.3 * outH, 0.47 * outH) - ey;
  ox = Math.round(ox);
  oy = Math.round(oy);
  const x0 = Math.max(0, ox), y0 = Math.max(0, oy);
  const x1 = Math.min(outW, ox + sw), y1 = Math.min(outH, oy + sh);
  return {
    scale,
    offsetX: ox,
    offsetY: oy,
    photoRect: { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) },
    width: outW,
    height: outH,
  };
}

export function coversFrame(f: Framing): boolean {
  const r = f.photoRect;
  return r.x === 0 && r.y === 0 && r.w === f.width && r.h === f.height;
}

/** Renders the framed canvas (RGB raw) from the decoded photo. */
export async function renderFramed(
  photo: Canvas,
  f: Framing,
): Promise<Canvas> {
  const raw = { raw: { width: photo.width, height: photo.height, channels: 3 as const } };
  const sw = Math.round(photo.width * f.scale), sh = Math.round(photo.height * f.scale);
  const r = f.photoRect;
  const visible = await sharp(photo.data, raw)
    .resize(sw, sh, { kernel: "lanczos3" })
    .extract({ left: r.x - f.offsetX, top: r.y - f.offsetY, width: r.w, height: r.h })
    .raw()
    .toBuffer();
  if (coversFrame(f)) {
    return {
      data: new Uint8Array(visible.buffer, visible.byteOffset, visible.length),
      width: f.width,
      height: f.height,
    };
  }
  const smallW = Math.max(8, Math.round(f.width / 8)), smallH = Math.max(8, Math.round(f.height / 8));
  const fill = await sharp(photo.data, raw)
    .resize(smallW, smallH, { fit: "cover" })
    .blur(5)
    .linear(0.55, 0)
    .raw()
    .toBuffer();
  const composed = await sharp(fill, { raw: { width: smallW, height: smallH, channels: 3 } })
    .resize(f.width, f.height, { kernel: "cubic" })
    .composite([{
      input: visible,
      raw: { width: r.w, height: r.h, channels: 3 },
      left: r.x,
      top: r.y,
    }])
    .raw()
    .toBuffer({ resolveWithObject: true });
  // composite() always yields RGBA; the canvas is RGB, so drop alpha (reading RGBA as RGB skews the image).
  const out = composed.info.channels === 3 ? composed.data : await sharp(composed.data, {
    raw: { width: f.width, height: f.height, channels: composed.info.channels as 4 },
  }).removeAlpha().raw().toBuffer();
  return { data: new Uint8Array(out.buffer, out.byteOffset, out.length), width: f.width, height: f.height };
}

export function mapPoints(pts: Point[], f: Framing): Point[] {
  return pts.map((p) => [p[0] * f.scale + f.offsetX, p[1] * f.scale + f.offsetY]);
}
