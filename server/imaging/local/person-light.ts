/**
 * Light that falls on the person (Scene Composer's Dramatic Contrast, Golden Hour, Neon Night and Soft Studio's
 * fill), not a filter over the frame: the grade (scene.ts, gradeLighting) shifts the whole frame's colour
 * alike, which reads as a filter; a light has a direction, so it lights the surfaces that face it and leaves
 * the others in shadow.
 *
 * The person's shape is guessed from what the model has: the person mask (blurred, its edges turn away from
 * the camera, as a body's sides do), the face (a dome over its oval) and the nose (from the depth of the face's
 * mesh). Each light's share at a point is max(0, n . L)^falloff for the point's normal n, less where the nose
 * stands between the point and the light (its shadow), in linear light, multiplying the photo's pixel (its own
 * shading and colour stay under the new light). The key comes from the side the photo was already lit from
 * (the brighter cheek), so the new shadows deepen the photo's own instead of fighting them; a fill comes from
 * the other side, as strong as the photo's own light is one-sided.
 */
import { type Canvas, meanLuminance } from "./blend.ts";
import { hexToLinear, LIN_STEPS, LINEAR_TO_SRGB_LUT, SRGB_TO_LINEAR } from "./color.ts";
import type { FaceGeometry } from "./face-geometry.ts";
import { CHEEK_L, CHEEK_R, NOSE_BRIDGE, NOSE_OUTLINE } from "./landmarks.ts";
import { blurPlane, createMask, fillEllipse, fillPolygon, type Point } from "./masks.ts";
import type { RefinedMatte } from "./matte-refine.ts";
import type { PersonMask } from "./person-mask.ts";
import type { LightSource, PersonLight } from "./recipes.ts";

/** The light the photo was taken in, as the cheeks show it (measured before any paint). */
export interface PhotoLight {
  /** 1 when it comes from the canvas's right (the cheek on the right is the brighter), else -1. */
  side: 1 | -1;
  /** The lit cheek's mean linear luminance over the other's (at least 1). */
  ratio: number;
}

/**
 * The lights on the person: a lighting option's (see PERSON_LIGHTS) and a scene's light behind them (see
 * BackdropRecipe.backlight), added to the option's; none when neither has one.
 */
export function lightsOnPerson(
  option: PersonLight | undefined,
  backlight: LightSource | undefined,
): PersonLight | undefined {
  if (!backlight) return option;
  return option
    ? { ...option, sources: [...option.sources, backlight] }
    : { ambient: 1, sources: [backlight] };
}

/** The side the photo was lit from and how one-sided its light is (see PhotoLight). */
export function photoLight(img: Canvas, g: FaceGeometry): PhotoLight {
  // Each cheek's mean linear luminance over a disc of 0.07 face widths around its centre.
  const mean = (idx: number[]) => {
    const [x, y] = centreOf(g, idx);
    const r = Math.max(2, 0.07 * g.fw);
    const disc = createMask({ x: x - r, y: y - r, w: 2 * r + 2, h: 2 * r + 2 });
    fillEllipse(disc, x, y, r, r);
    return { x, lum: meanLuminance(img, disc) };
  };
  const a = mean(CHEEK_R), b = mean(CHEEK_L);
  const [left, right] = a.x < b.x ? [a, b] : [b, a];
  const [lit, far] = right.lum > left.lum ? [right, left] : [left, right];
  return { side: lit === right ? 1 : -1, ratio: far.lum > 0 ? Math.max(1, lit.lum / far.lum) : 1 };
}

/** The mean of some of the mesh's points, in canvas pixels. */
function centreOf(g: FaceGeometry, idx: number[]): Point {
  let x = 0, y = 0;
  for (const i of idx) {
    x += g.pts[i][0] / idx.length;
    y += g.pts[i][1] / idx.length;
  }
  return [x, y];
}

/**
 * A light's multiplier per channel on a grid of `step`-pixel cells (3 values a cell), and for lights from behind
 * the person their share of the multiplier and the linear light they add (see LightSource.sheen; 6 values a
 * cell), which light the matte's core only (see lightPerson).
 */
interface LightField {
  w: number;
  h: number;
  step: number;
  data: Float32Array;
  behind?: Float32Array;
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

/** Mesh points whose depth shapes the nose (the 10 iris points after them add nothing). */
const MESH_POINTS = 468;

/**
 * The nose standing out of the face, in grid cells toward the camera: each mesh point's height (its depth, see
 * DetectedFace.depth) spread over the grid at two scales, 0.035 face widths (about the mesh's spacing) and 0.15
 * (the face's broad shape, which the dome stands for), their difference within the nose's outline (`outline`,
 * 1 inside, softened here). The rest of the face's relief was tried and left out: at the grid's 8 pixels the
 * brows and the forehead's rows of points came out as wrinkles under a grazing light.
 */
function noseRelief(
  g: FaceGeometry,
  depth: readonly number[],
  w: number,
  h: number,
  step: number,
  outline: Float32Array,
): Float32Array {
  // (Each point's height and weight dealt to its four nearest cells, then both blurred: a Gaussian-weighted
  // mean at the cost of two blurs.)
  const heights = new Float32Array(w * h), weights = new Float32Array(w * h);
  for (let i = 0; i < MESH_POINTS; i++) {
    const px = Math.min(w - 1.001, Math.max(0, g.pts[i][0] / step - 0.5));
    const py = Math.min(h - 1.001, Math.max(0, g.pts[i][1] / step - 0.5));
    const x0 = px | 0, y0 = py | 0, fx = px - x0, fy = py - y0, v = (-depth[i] * g.fw) / step;
    const deal = (c: number, k: number) => {
      heights[c] += k * v;
      weights[c] += k;
    };
    deal(y0 * w + x0, (1 - fx) * (1 - fy));
    deal(y0 * w + x0 + 1, fx * (1 - fy));
    deal((y0 + 1) * w + x0, (1 - fx) * fy);
    deal((y0 + 1) * w + x0 + 1, fx * fy);
  }
  // (A cell no point reaches takes `otherwise`'s height: the fine scale is under a cell on a small face.)
  const spread = (s: number, otherwise?: Float32Array) => {
    const sum = heights.slice(), weight = weights.slice();
    blurPlane(sum, w, h, s);
    blurPlane(weight, w, h, s);
    for (let i = 0; i < sum.length; i++) sum[i] = weight[i] > 1e-3 ? sum[i] / weight[i] : otherwise?.[i] ?? 0;
    return sum;
  };
  const broad = spread((0.15 * g.fw) / step), fine = spread((0.035 * g.fw) / step, broad);
  const inside = outline.slice();
  blurPlane(inside, w, h, (0.03 * g.fw) / step);
  const out = new Float32Array(w * h);
  for (let i = 0; i < out.length; i++) {
    if (inside[i] > 0.001) out[i] = inside[i] * (fine[i] - broad[i]);
  }
  return out;
}

/** The height of a cell that casts no shadow (finite: the rays interpolate between cells). */
const NO_OCCLUDER = -1e6;

/** 1 / tan of a shadow's penumbra half-angle: a soft key's shadow edge spreads over about 11 degrees. */
const PENUMBRA = 5;

/**
 * How much of a light reaches cell (x, y) past the relief between it and the light (1 all, 0 none): a ray from
 * the cell toward the light, `dx`, `dy` a cell's step across the grid and `rise` the height it gains per
 * step, marched until it passes `top` (the highest cell) or leaves the grid; its narrowest clearance over the
 * surface, as an angle, fades the light (a soft shadow's edge, see PENUMBRA).
 */
function lightReaching(
  height: Float32Array,
  w: number,
  h: number,
  x: number,
  y: number,
  h0: number,
  dx: number,
  dy: number,
  rise: number,
  top: number,
): number {
  let open = 1;
  for (let t = 1;; t++) {
    const ray = h0 + rise * t;
    const sx = x + dx * t, sy = y + dy * t;
    if (ray >= top || sx < 0 || sy < 0 || sx > w - 1 || sy > h - 1) return open;
    const x0 = sx | 0, y0 = sy | 0, fx = sx - x0, fy = sy - y0;
    const x1 = Math.min(w - 1, x0 + 1), y1 = Math.min(h - 1, y0 + 1);
    const a = height[y0 * w + x0] + (height[y0 * w + x1] - height[y0 * w + x0]) * fx;
    const b = height[y1 * w + x0] + (height[y1 * w + x1] - height[y1 * w + x0]) * fx;
    open = Math.min(open, (PENUMBRA * (ray - (a + (b - a) * fy))) / t);
    if (open <= 0) return 0;
  }
}

/** The unit normal of the height field at cell (x, y), from its central differences. */
function normalAt(
  height: Float32Array,
  w: number,
  h: number,
  x: number,
  y: number,
): [number, number, number] {
  const dx = (height[y * w + Math.min(w - 1, x + 1)] - height[y * w + Math.max(0, x - 1)]) / 2;
  const dy = (height[Math.min(h - 1, y + 1) * w + x] - height[Math.max(0, y - 1) * w + x]) / 2;
  const nl = Math.hypot(dx, dy, 1);
  return [-dx / nl, -dy / nl, 1 / nl];
}

/**
 * A fill's ambient and strength (see PersonLight.evens): the fill `l` multiplies each cheek by ambient + s a, a
 * its share there (from the field's normal at the cheek's centre); s is set so that the cheeks' ratio
 * `lit.ratio` becomes ratio^evens (at most the source's strength; none when the photo's light is even), and
 * both are scaled so that the lit cheek keeps its light: a fill lifts the shadows, not the highlights.
 */
function fill(
  height: Float32Array,
  w: number,
  h: number,
  step: number,
  g: FaceGeometry,
  lit: PhotoLight,
  light: PersonLight,
  l: readonly number[],
): { ambient: number; strength: number } {
  const source = light.sources[0];
  const share = (idx: number[]) => {
    const [x, y] = centreOf(g, idx);
    const cx = Math.min(w - 1, Math.max(0, Math.round(x / step - 0.5)));
    const cy = Math.min(h - 1, Math.max(0, Math.round(y / step - 0.5)));
    const n = normalAt(height, w, h, cx, cy);
    return { x, a: Math.max(0, n[0] * l[0] + n[1] * l[1] + n[2] * l[2]) ** source.falloff };
  };
  const r = share(CHEEK_R), q = share(CHEEK_L);
  const [litCheek, farCheek] = (r.x > q.x) === (lit.side === 1) ? [r, q] : [q, r];
  // (ambient + s far) / (ambient + s lit) = ratio^(1 - evens).
  const t = lit.ratio ** (1 - (light.evens ?? 1)), below = farCheek.a - t * litCheek.a;
  const s = t <= 1
    ? 0
    : below > 0
    ? Math.min(source.strength, (light.ambient * (t - 1)) / below)
    : source.strength;
  const kept = light.ambient + s * litCheek.a;
  return { ambient: light.ambient / kept, strength: s / kept };
}

/**
 * The light's multiplier per channel over the person: the shape guessed from the mask, the head's dome and the
 * nose from the face's mesh, lit by `light`'s sources with the key on the side the photo was lit from, each
 * source's light stopped where the nose stands between it and the point (its shadow on the far side of the
 * face).
 */
function lightField(
  person: PersonMask,
  g: FaceGeometry,
  depth: readonly number[],
  light: PersonLight,
  lit: PhotoLight,
): LightField {
  const { w, h, step, data } = halved(person);
  // Height, in grid cells: the mask blurred over a third of the face's width, raised so that its edge (the
  // blur's steepest slope) turns a normal about 70 degrees from the camera, as a body's sides turn away ...
  const sigma = (0.3 * g.fw) / step;
  const height = data.slice();
  blurPlane(height, w, h, sigma);
  for (let i = 0; i < height.length; i++) height[i] *= 6.25 * sigma;
  // ... and the head, a half-ellipsoid over the face a little wider than its oval, as deep as 0.8 of its
  // half-width (a sphere's side light falls off gradually, brightest toward the lit edge) ...
  const cx = g.center[0] / step - 0.5, cy = g.center[1] / step - 0.5;
  const rx = (0.6 * g.fw) / step, ry = (0.6 * g.fh) / step;
  const dome = (x: number, y: number) => {
    const d2 = ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2;
    return d2 < 1 ? 0.8 * rx * Math.sqrt(1 - d2) : 0;
  };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) height[y * w + x] += dome(x, y);
  }
  // (The ellipsoid's rim is a crease: softened.) ...
  blurPlane(height, w, h, (0.06 * g.fw) / step);
  // ... and the nose, from the face's mesh.
  const nose = createMask({ x: 0, y: 0, w, h });
  fillPolygon(nose, NOSE_OUTLINE.map((i): Point => [g.pts[i][0] / step, g.pts[i][1] / step]));
  // (Not for a fill, large and soft, which lights the nose's sides as the face's: with the nose, its light rose
  // along the nose's shaded side in a bright wedge.)
  const relief = light.evens === undefined
    ? noseRelief(g, depth, w, h, step, nose.data)
    : new Float32Array(w * h);
  for (let i = 0; i < height.length; i++) height[i] += relief[i];
  // The nose casts shadows below the middle of its bridge (the bridge between the eyes left a dark speck at the
  // far eye's inner corner); `nose` becomes the height of the cells that cast them.
  const [bx, by] = g.pts[NOSE_BRIDGE[2]];
  // The nose's cells' box and highest cell, and the relief's lowest: a ray from farther from the box than it
  // climbs from the lowest cell to the highest passes over the nose (or misses it), and is not marched.
  let top = -Infinity, low = 0, x0 = w, x1 = -1, y0 = h, y1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x, below = ((x + 0.5) * step - bx) * g.up[0] + ((y + 0.5) * step - by) * g.up[1] < 0;
      low = Math.min(low, relief[i]);
      nose.data[i] = below && nose.data[i] >= 0.5 ? relief[i] : NO_OCCLUDER;
      if (nose.data[i] === NO_OCCLUDER) continue;
      top = Math.max(top, nose.data[i]);
      x0 = Math.min(x0, x), x1 = Math.max(x1, x), y0 = Math.min(y0, y), y1 = Math.max(y1, y);
    }
  }
  const sources = light.sources.map((s) => {
    const [lx, ly, lz] = s.from, len = Math.hypot(lx, ly, lz), c = hexToLinear(s.color);
    const l = [(lit.side * lx) / len, ly / len, lz / len], across = Math.hypot(l[0], l[1]);
    const max = Math.max(...c);
    // (A light straight from the camera casts no shadow the camera sees.)
    const rise = l[2] / across, reach = across > 1e-6 ? (top - low) / rise : -Infinity;
    return { l, c: c.map((v) => v / max), s, dx: l[0] / across, dy: l[1] / across, rise, reach };
  });
  // A fill (the first source, see PersonLight.evens) is as strong as the photo's light needs, and as a large
  // soft source casts no shadow: a hard nose shadow of the fill's fell across the lit cheek.
  const filled = light.evens === undefined
    ? undefined
    : fill(height, w, h, step, g, lit, light, sources[0].l);
  const filler = filled ? sources[0] : undefined;
  const ambient = filled?.ambient ?? light.ambient;
  // A light from behind the person reaches only the outline's last few centimetres (a rim): its surface is the
  // mask blurred over 0.06 face widths, its edge turned as the body's is.
  let rim: Float32Array | undefined;
  if (sources.some((s) => s.l[2] < 0)) {
    const sigmaRim = Math.max(1, (0.06 * g.fw) / step);
    rim = data.slice();
    blurPlane(rim, w, h, sigmaRim);
    for (let i = 0; i < rim.length; i++) rim[i] *= 6.25 * sigmaRim;
  }
  const out = new Float32Array(w * h * 3);
  const behind = rim ? new Float32Array(w * h * 6) : undefined;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      out.fill(ambient, i * 3, i * 3 + 3);
      const n = normalAt(height, w, h, x, y), nr = rim ? normalAt(rim, w, h, x, y) : n;
      // (Shadows are cast on the person only: the matte's strands beyond the mask are lit as they face.)
      const off = data[i] > 0 ? Math.max(x0 - x, x - x1, y0 - y, y - y1, 0) : Infinity;
      for (const src of sources) {
        const [nx, ny, nz] = src.l[2] < 0 ? nr : n;
        const facing = src.l[0] * nx + src.l[1] * ny + src.l[2] * nz;
        if (facing <= 0) continue;
        const open = src !== filler && off <= src.reach
          ? lightReaching(nose.data, w, h, x, y, relief[i], src.dx, src.dy, src.rise, top)
          : 1;
        const q = (src === filler ? filled!.strength : src.s.strength) * facing ** src.s.falloff * open;
        if (behind && src.l[2] < 0) {
          const glow = (src.s.sheen ?? 0) * facing ** src.s.falloff;
          for (let ch = 0; ch < 3; ch++) {
            behind[i * 6 + ch] += q * src.c[ch];
            behind[i * 6 + 3 + ch] += glow * src.c[ch];
          }
        } else {
          for (let ch = 0; ch < 3; ch++) out[i * 3 + ch] += q * src.c[ch];
        }
      }
    }
  }
  return { w, h, step, data: out, behind };
}

/**
 * Lights the person on the canvas, the key on the side the photo was lit from (`lit`, see photoLight, measured
 * before any paint): each pixel in linear light times the field (sampled bilinearly), as far as the refined
 * matte holds the person (its hair's strands as much as they cover the old background). A light from behind
 * lights the matte's core only (0 at 0.5, full from 0.9): on a strand beyond the outline it lifted the new
 * backdrop's share of the pixel too, a glow around the person over a dark backdrop (a halo).
 */
export function lightPerson(
  img: Canvas,
  g: FaceGeometry,
  depth: readonly number[],
  person: PersonMask,
  matte: RefinedMatte,
  light: PersonLight,
  lit: PhotoLight,
): void {
  const { w, h, step, data: field, behind } = lightField(person, g, depth, light, lit);
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
  const f = new Float32Array(3), add = new Float32Array(3);
  const row = new Float32Array(w * 3), behindRow = new Float32Array(w * 6);
  // Whether a column of the row's field changes anything (a backlight's rim alone leaves the person's inside as
  // it is).
  const lights = new Uint8Array(w);
  for (let my = 0; my < mh; my++) {
    const gy = Math.min(h - 1.001, Math.max(0, ((my + 0.5) * ms) / step - 0.5)), y0 = gy | 0, fy = gy - y0;
    const r0 = y0 * w * 3, r1 = Math.min(h - 1, y0 + 1) * w * 3;
    for (let j = 0; j < w * 3; j++) row[j] = field[r0 + j] + (field[r1 + j] - field[r0 + j]) * fy;
    if (behind) {
      for (let j = 0, b0 = 2 * r0, b1 = 2 * r1; j < w * 6; j++) {
        behindRow[j] = behind[b0 + j] + (behind[b1 + j] - behind[b0 + j]) * fy;
      }
    }
    for (let x = 0; x < w; x++) {
      let any = 0;
      for (let ch = 0; ch < 3; ch++) any += Math.abs(row[x * 3 + ch] - 1);
      for (let j = x * 6; j < x * 6 + 6; j++) any += behindRow[j];
      lights[x] = any > 1e-4 ? 1 : 0;
    }
    const yEnd = my === mh - 1 ? H : Math.min(H, (my + 1) * ms);
    for (let mx = 0; mx < mw; mx++) {
      const on = a[my * mw + mx];
      const c0 = col0[mx], c1 = col1[mx], fx = colF[mx];
      if (on <= 0 || !(lights[c0 / 3] || lights[c1 / 3])) continue;
      const core = Math.min(1, Math.max(0, (on - 0.5) / 0.4)), b0 = c0 * 2, b1 = c1 * 2;
      for (let ch = 0; ch < 3; ch++) {
        const back = behindRow[b0 + ch] + (behindRow[b1 + ch] - behindRow[b0 + ch]) * fx;
        f[ch] = 1 + (row[c0 + ch] + (row[c1 + ch] - row[c0 + ch]) * fx - 1) * on + back * core;
        add[ch] = (behindRow[b0 + 3 + ch] + (behindRow[b1 + 3 + ch] - behindRow[b0 + 3 + ch]) * fx) * core;
      }
      const xEnd = mx === mw - 1 ? W : Math.min(W, (mx + 1) * ms);
      for (let y = my * ms; y < yEnd; y++) {
        for (let i = (y * W + mx * ms) * 3, end = (y * W + xEnd) * 3; i < end; i += 3) {
          for (let ch = 0; ch < 3; ch++) {
            const v = lin[d[i + ch]] * f[ch] + add[ch];
            d[i + ch] = v >= 1 ? 255 : toSrgb[(v * LIN_STEPS + 0.5) | 0];
          }
        }
      }
    }
  }
}
