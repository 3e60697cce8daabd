/**
 * Light that falls on the person (Scene Composer's Dramatic Contrast, Golden Hour and Neon Night), not a
 * filter over the frame: the grade (scene.ts, gradeLighting) shifts the whole frame's colour alike, which reads
 * as a filter; a light has a direction, so it lights the surfaces that face it and leaves the others in shadow.
 *
 * The person's shape is guessed from what the model has: the person mask (blurred, its edges turn away from
 * the camera, as a body's sides do) and the face (a dome over its oval). Each light's share at a point is
 * max(0, n . L)^falloff for the point's normal n, in linear light, multiplying the photo's pixel (its own
 * shading and colour stay under the new light). The key comes from the side the photo was already lit from
 * (the brighter cheek), so the new shadows deepen the photo's own instead of fighting them.
 */
import { type Canvas, meanLuminance } from "./blend.ts";
import { hexToLinear, LIN_STEPS, LINEAR_TO_SRGB_LUT, SRGB_TO_LINEAR } from "./color.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { CHEEK_L, CHEEK_R } from "./landmarks.ts";
import { blurPlane, createMask, fillEllipse } from "./masks.ts";
import type { RefinedMatte } from "./matte-refine.ts";
import type { PersonMask } from "./person-mask.ts";
import type { PersonLight } from "./recipes.ts";

/** 1 when the photo's light comes from the canvas's right (the cheek on the right is the brighter), else -1. */
export function litSide(img: Canvas, g: FaceGeometry): 1 | -1 {
  // Each cheek's mean linear luminance over a disc of 0.07 face widths around its centre.
  const mean = (idx: number[]) => {
    let x = 0, y = 0;
    for (const i of idx) {
      x += g.pts[i][0] / idx.length;
      y += g.pts[i][1] / idx.length;
    }
    const r = Math.max(2, 0.07 * g.fw);
    const disc = createMask({ x: x - r, y: y - r, w: 2 * r + 2, h: 2 * r + 2 });
    fillEllipse(disc, x, y, r, r);
    return { x, lum: meanLuminance(img, disc) };
  };
  const a = mean(CHEEK_R), b = mean(CHEEK_L);
  const [left, right] = a.x < b.x ? [a, b] : [b, a];
  return right.lum > left.lum ? 1 : -1;
}

/** A light's multiplier per channel on a grid of `step`-pixel cells (3 values a cell). */
interface LightField {
  w: number;
  h: number;
  step: number;
  data: Float32Array;
}

/** The mask on a grid of cells twice as large (each the mean of four): a light varies over tens of pixels. */
function halved(m: PersonMask): PersonMask {
  const w = Math.ceil(m.w / 2), h = Math.ceil(m.h / 2), data = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const x0 = 2 * x, y0 = 2 * y, x1 = Math.min(m.w - 1, x0 + 1), y1 = Math.min(m.h - 1, y0 + 1);
      data[y * w + x] = (m.data[y0 * m.w + x0] + m.data[y0 * m.w + x1] + m.data[y1 * m.w + x0] +
        m.data[y1 * m.w + x1]) / 4;
    }
  }
  return { w, h, step: m.step * 2, data };
}

/**
 * The light's multiplier per channel over the person: the shape guessed from the mask and the face, lit by
 * `light`'s sources with the key on `side`.
 */
function lightField(
  person: PersonMask,
  g: FaceGeometry,
  light: PersonLight,
  side: 1 | -1,
): LightField {
  const { w, h, step, data } = halved(person);
  // Height, in grid cells: the mask blurred over a third of the face's width, raised so that its edge (the
  // blur's steepest slope) turns a normal about 70 degrees from the camera, as a body's sides turn away ...
  const sigma = (0.3 * g.fw) / step;
  const height = data.slice();
  blurPlane(height, w, h, sigma);
  for (let i = 0; i < height.length; i++) height[i] *= 6.25 * sigma;
  // ... and the head, a half-ellipsoid over the face a little wider than its oval, as deep as 0.8 of its
  // half-width (a sphere's side light falls off gradually, brightest toward the lit edge).
  const cx = g.center[0] / step, cy = g.center[1] / step, rx = (0.6 * g.fw) / step, ry = (0.6 * g.fh) / step;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const d2 = ((x + 0.5 - cx) / rx) ** 2 + ((y + 0.5 - cy) / ry) ** 2;
      if (d2 < 1) height[y * w + x] += 0.8 * rx * Math.sqrt(1 - d2);
    }
  }
  // (The ellipsoid's rim is a crease: softened.)
  blurPlane(height, w, h, (0.06 * g.fw) / step);
  const sources = light.sources.map((s) => {
    const [lx, ly, lz] = s.from, len = Math.hypot(lx, ly, lz), c = hexToLinear(s.color);
    const top = Math.max(...c);
    return { l: [(side * lx) / len, ly / len, lz / len], c: c.map((v) => v / top), s };
  });
  const out = new Float32Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const dx = (height[y * w + Math.min(w - 1, x + 1)] - height[y * w + Math.max(0, x - 1)]) / 2;
      const dy = (height[Math.min(h - 1, y + 1) * w + x] - height[Math.max(0, y - 1) * w + x]) / 2;
      const nl = Math.hypot(dx, dy, 1), nx = -dx / nl, ny = -dy / nl, nz = 1 / nl;
      out.fill(light.ambient, i * 3, i * 3 + 3);
      for (const { l, c, s: src } of sources) {
        const q = src.strength * Math.max(0, nx * l[0] + ny * l[1] + nz * l[2]) ** src.falloff;
        for (let ch = 0; ch < 3; ch++) out[i * 3 + ch] += q * c[ch];
      }
    }
  }
  return { w, h, step, data: out };
}

/**
 * Lights the person on the canvas, the key on `side` (see litSide, measured before any paint): each pixel in
 * linear light times the field (sampled bilinearly), as far as the refined matte holds the person (its hair's
 * strands as much as they cover the old background).
 */
export function lightPerson(
  img: Canvas,
  g: FaceGeometry,
  person: PersonMask,
  matte: RefinedMatte,
  light: PersonLight,
  side: 1 | -1,
): void {
  const { w, h, step, data: field } = lightField(person, g, light, side);
  const W = img.width, H = img.height, d = img.data;
  const a = matte.alpha, mw = matte.width, mh = matte.height, ms = matte.scale;
  // The light varies over tens of pixels: its factors are taken once per matte cell (ms x ms pixels, the last
  // cells reaching the canvas's edges), at the cell's centre. The columns' field cells (offsets of their 3
  // values) and weights are the same on every row.
  const col0 = new Int32Array(mw), col1 = new Int32Array(mw), colF = new Float32Array(mw);
  for (let mx = 0; mx < mw; mx++) {
    const gx = Math.min(w - 1.001, Math.max(0, ((mx + 0.5) * ms) / step - 0.5)), x0 = gx | 0;
    col0[mx] = x0 * 3;
    col1[mx] = Math.min(w - 1, x0 + 1) * 3;
    colF[mx] = gx - x0;
  }
  const lin = SRGB_TO_LINEAR, toSrgb = LINEAR_TO_SRGB_LUT;
  const f = new Float32Array(3), row = new Float32Array(w * 3);
  for (let my = 0; my < mh; my++) {
    const gy = Math.min(h - 1.001, Math.max(0, ((my + 0.5) * ms) / step - 0.5)), y0 = gy | 0, fy = gy - y0;
    const r0 = y0 * w * 3, r1 = Math.min(h - 1, y0 + 1) * w * 3;
    for (let j = 0; j < w * 3; j++) row[j] = field[r0 + j] + (field[r1 + j] - field[r0 + j]) * fy;
    const yEnd = my === mh - 1 ? H : Math.min(H, (my + 1) * ms);
    for (let mx = 0; mx < mw; mx++) {
      const on = a[my * mw + mx];
      if (on <= 0) continue;
      const c0 = col0[mx], c1 = col1[mx], fx = colF[mx];
      for (let ch = 0; ch < 3; ch++) f[ch] = 1 + (row[c0 + ch] + (row[c1 + ch] - row[c0 + ch]) * fx - 1) * on;
      const xEnd = mx === mw - 1 ? W : Math.min(W, (mx + 1) * ms);
      for (let y = my * ms; y < yEnd; y++) {
        for (let i = (y * W + mx * ms) * 3, end = (y * W + xEnd) * 3; i < end; i += 3) {
          for (let ch = 0; ch < 3; ch++) {
            const v = lin[d[i + ch]] * f[ch];
            d[i + ch] = v >= 1 ? 255 : toSrgb[(v * LIN_STEPS + 0.5) | 0];
          }
        }
      }
    }
  }
}
