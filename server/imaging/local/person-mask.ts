/**
 * Person matte from MediaPipe selfie segmentation, run twice: on the whole
 * frame and on a square tile around the head (sharper hair edges), stored at a
 * quarter of the canvas resolution and sampled bilinearly.
 */
import type { Canvas } from "./blend.ts";
import type { FaceEngine } from "./face-engine.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import type { Rect } from "./masks.ts";
import { edgeFade } from "./framing.ts";

export interface PersonMask {
  /** Grid size (canvas / step). */
  w: number;
  h: number;
  step: number;
  data: Float32Array;
}

const SIZE = 256;

/**
 * Where the canvas pixels come from: the canvas itself, or (to segment while
 * the framed canvas is still being rendered) the decoded photo and the
 * framing that maps it onto the canvas (canvas = photo * scale + offset).
 */
export interface PhotoSource {
  photo: Canvas;
  scale: number;
  offsetX: number;
  offsetY: number;
}

/** Source pixel index (x or y) for canvas coordinate v, clamped to the source. */
function sourceIndex(v: number, n: number, src?: PhotoSource, offset = 0): number {
  const s = src ? Math.round((v + 0.5 - offset) / src.scale - 0.5) : v;
  return s < 0 ? 0 : s > n - 1 ? n - 1 : s;
}

function tileInput(img: Canvas, r: Rect, src?: PhotoSource): Float32Array {
  const out = new Float32Array(SIZE * SIZE * 3);
  const from = src?.photo ?? img;
  const d = from.data, W = from.width;
  const sx = r.w / SIZE, sy = r.h / SIZE;
  // Sample columns and rows (two per cell each), in source pixels.
  const cols = new Int32Array(2 * SIZE), rows = new Int32Array(2 * SIZE);
  for (let i = 0; i < 2 * SIZE; i++) {
    const o = (i & 1) ? 0.75 : 0.25, c = i >> 1;
    const x = Math.min(img.width - 1, Math.floor(r.x + (c + o) * sx));
    const y = Math.min(img.height - 1, Math.floor(r.y + (c + o) * sy));
    cols[i] = sourceIndex(x, from.width, src, src?.offsetX);
    rows[i] = sourceIndex(y, from.height, src, src?.offsetY);
  }
  for (let j = 0; j < SIZE; j++) {
    for (let i = 0; i < SIZE; i++) {
      let a = 0, b = 0, c = 0;
      for (let q = 0; q < 4; q++) {
        const k = (rows[2 * j + (q >> 1)] * W + cols[2 * i + (q & 1)]) * 3;
        a += d[k];
        b += d[k + 1];
        c += d[k + 2];
      }
      const o = (j * SIZE + i) * 3;
      out[o] = a / 1020;
      out[o + 1] = b / 1020;
      out[o + 2] = c / 1020;
    }
  }
  return out;
}

function sample256(m: Float32Array, u: number, v: number): number {
  const x = Math.min(SIZE - 1.001, Math.max(0, u * SIZE - 0.5));
  const y = Math.min(SIZE - 1.001, Math.max(0, v * SIZE - 0.5));
  const x0 = Math.floor(x), y0 = Math.floor(y), fx = x - x0, fy = y - y0;
  const i = y0 * SIZE + x0;
  return (m[i] * (1 - fx) + m[i + 1] * fx) * (1 - fy) +
    (m[i + SIZE] * (1 - fx) + m[i + SIZE + 1] * fx) * fy;
}

/**
 * `img` gives the canvas size and, unless `src` is given, the pixels; with
 * `src` the model sees the photo as framed (the canvas need not exist yet).
 */
export function personMask(
  engine: FaceEngine,
  img: { width: number; height: number; data?: Uint8Array },
  g: FaceGeometry,
  photoRect: Rect,
  isolate: boolean,
  src?: PhotoSource,
): PersonMask {
  const canvas: Canvas = { data: img.data ?? new Uint8Array(0), width: img.width, height: img.height };
  const step = 4;
  const w = Math.ceil(img.width / step), h = Math.ceil(img.height / step);
  const data = new Float32Array(w * h);
  const full = engine.segment(tileInput(canvas, { x: 0, y: 0, w: img.width, h: img.height }, src));
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      data[j * w + i] = sample256(full, (i + 0.5) * step / img.width, (j + 0.5) * step / img.height);
    }
  }
  // Head tile.
  const side = Math.min(img.width, img.height, Math.round(3.4 * g.fw));
  const tx = Math.round(Math.min(img.width - side, Math.max(0, g.center[0] - side / 2)));
  const ty = Math.round(Math.min(img.height - side, Math.max(0, g.center[1] - side * 0.55)));
  const head = engine.segment(tileInput(canvas, { x: tx, y: ty, w: side, h: side }, src));
  const fade = side * 0.12;
  for (let j = 0; j < h; j++) {
    const cy = (j + 0.5) * step;
    if (cy < ty || cy >= ty + side) continue;
    for (let i = 0; i < w; i++) {
      const cx = (i + 0.5) * step;
      if (cx < tx || cx >= tx + side) continue;
      const edge = Math.min(
        tx === 0 ? Infinity : cx - tx,
        tx + side >= img.width ? Infinity : tx + side - cx,
        ty === 0 ? Infinity : cy - ty,
        ty + side >= img.height ? Infinity : ty + side - cy,
      );
      const wt = Math.min(1, edge / fade);
      const v = sample256(head, (cx - tx) / side, (cy - ty) / side);
      const k = j * w + i;
      data[k] = data[k] * (1 - wt) + v * wt;
    }
  }
  // Real photo pixels only; and when neighbours were in the photo, a body prior
  // around the chosen person.
  const chinY = g.pts[152][1];
  const covers = photoRect.x <= 0 && photoRect.y <= 0 && photoRect.x + photoRect.w >= img.width &&
    photoRect.y + photoRect.h >= img.height;
  for (let j = 0; j < h; j++) {
    const cy = (j + 0.5) * step;
    let half = 0;
    if (isolate) {
      const below = Math.max(0, cy - chinY) / g.fh;
      half = g.fw * (cy < chinY ? 1.25 : Math.min(2.8, 1.25 + below * 1.2));
    }
    for (let i = 0; i < w; i++) {
      const cx = (i + 0.5) * step;
      const k = j * w + i;
      // Inner photo edges fade out (the body does not end in a hard line over a backdrop).
      const fade = covers ? 1 : edgeFade(photoRect, img.width, img.height, cx - 0.5, cy - 0.5);
      if (fade <= 0) {
        data[k] = 0;
        continue;
      }
      data[k] *= fade;
      if (isolate) {
        const over = Math.abs(cx - g.center[0]) - half;
        if (over > 0) data[k] *= Math.max(0, 1 - over / (0.25 * g.fw));
      }
    }
  }
  return { w, h, step, data };
}

/** Bilinear sample of the person mask at canvas pixel (x, y). */
export function personAt(m: PersonMask, x: number, y: number): number {
  const gx = Math.min(m.w - 1.001, Math.max(0, (x + 0.5) / m.step - 0.5));
  const gy = Math.min(m.h - 1.001, Math.max(0, (y + 0.5) / m.step - 0.5));
  const x0 = gx | 0, y0 = gy | 0, fx = gx - x0, fy = gy - y0;
  const i = y0 * m.w + x0;
  const d = m.data;
  return (d[i] * (1 - fx) + d[i + 1] * fx) * (1 - fy) +
    (d[i + m.w] * (1 - fx) + d[i + m.w + 1] * fx) * fy;
}
