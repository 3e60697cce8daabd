/**
 * The settings' backdrops, painted on a small plane as the background of a portrait looks: out of focus (the
 * plane is blurred by the sigma the painter returns, then enlarged: see renderBackdrop in scene.ts). Studio
 * papers are gradients with a soft light behind the head; bokeh settings are lights at several distances over
 * the place they hang in, dimly lit; the named places are painted from what a photo of them holds (a garden's
 * foliage and the sun through it, the sea's waves and the sun's glitter path, a city's lit windows, a lounge's
 * panelled wall, back bar and lamps), from the recipe's colours (recipes.ts).
 */
import { hexToRgb } from "./color.ts";
import { clamp01, smoothstep } from "./ramps.ts";
import type { BackdropRecipe } from "./recipes.ts";

/** sRGB 0..1 per channel, row-major (painted as the photo's encoding, not in linear light). */
export type Plane = { w: number; h: number; data: Float32Array };
type Rgb = [number, number, number];

function rgbf(hex: string): Rgb {
  const [r, g, b] = hexToRgb(hex);
  return [r / 255, g / 255, b / 255];
}

const mix = (a: Rgb, b: Rgb, t: number): Rgb => [
  a[0] + (b[0] - a[0]) * t,
  a[1] + (b[1] - a[1]) * t,
  a[2] + (b[2] - a[2]) * t,
];

function gradientAt(stops: Rgb[], t: number): Rgb {
  if (stops.length === 1) return stops[0];
  const x = Math.min(0.9999, Math.max(0, t)) * (stops.length - 1);
  const i = Math.floor(x);
  return mix(stops[i], stops[i + 1], x - i);
}

/** A seeded generator (the same backdrop for the same setting, every time). */
export function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

function fillGradient(p: Plane, stops: Rgb[], from = 0, to = 1, rowStart = 0, rowEnd = p.h) {
  for (let y = rowStart; y < rowEnd; y++) {
    const c = gradientAt(stops, ((y + 0.5) / p.h - from) / (to - from));
    for (let x = 0; x < p.w; x++) p.data.set(c, (y * p.w + x) * 3);
  }
}

/**
 * Adds a soft disc of light (screen blend): a defocused point light, rim ramp `soft` of its radius. With `rim`,
 * the disc's middle is that share dimmer than its outer ring (a lens's bokeh is brightest near its edge).
 */
function light(p: Plane, cx: number, cy: number, r: number, c: Rgb, a: number, soft = 0.35, rim = 0) {
  const x0 = Math.max(0, Math.floor(cx - r)), x1 = Math.min(p.w - 1, Math.ceil(cx + r));
  const y0 = Math.max(0, Math.floor(cy - r)), y1 = Math.min(p.h - 1, Math.ceil(cy + r));
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy) / r;
      if (d >= 1) continue;
      const k = a * Math.min(1, (1 - d) / soft) * (rim ? 1 - rim + rim * smoothstep(0.5, 0.85, d) : 1);
      const o = (y * p.w + x) * 3;
      for (let ch = 0; ch < 3; ch++) p.data[o + ch] = 1 - (1 - p.data[o + ch]) * (1 - c[ch] * k);
    }
  }
}

/** Paints a rectangle over the plane at opacity `a`. */
function rect(p: Plane, x0: number, y0: number, x1: number, y1: number, c: Rgb, a = 1) {
  for (let y = Math.max(0, Math.floor(y0)); y < Math.min(p.h, Math.ceil(y1)); y++) {
    for (let x = Math.max(0, Math.floor(x0)); x < Math.min(p.w, Math.ceil(x1)); x++) {
      const o = (y * p.w + x) * 3;
      for (let ch = 0; ch < 3; ch++) p.data[o + ch] += (c[ch] - p.data[o + ch]) * a;
    }
  }
}

/** A lattice point's random value in 0..1 (a hash of its coordinates and the layer's seed). */
function latticeValue(i: number, j: number, seed: number): number {
  let n = (Math.imul(i, 374761393) + Math.imul(j, 668265263) + Math.imul(seed, 1442695041)) | 0;
  n = Math.imul(n ^ (n >>> 13), 1274126177);
  return ((n ^ (n >>> 16)) >>> 0) / 4294967296;
}

/**
 * Fractal value noise over a w x h plane, spread to about 0..1 (mean 0.5, most values within 0.1-0.9):
 * `octaves` layers of random values on lattices `cx` x `cy` pixels apart, each layer's lattice and weight half
 * the one before, smoothly interpolated. With `turn`, each layer's lattice is turned by its own angle, so no
 * shape lines up with the plane's rows and columns (foliage; waves keep them: they lie along the horizon).
 * Foliage, waves and sand grain are drawn from it.
 */
export function fractalNoise(
  w: number,
  h: number,
  cx: number,
  cy: number,
  octaves: number,
  rand: () => number,
  turn = false,
): Float32Array {
  const out = new Float32Array(w * h);
  for (let o = 0, weight = 1; o < octaves; o++, weight /= 2) {
    const sx = Math.max(1, cx / 2 ** o), sy = Math.max(1, cy / 2 ** o), seed = Math.floor(rand() * 1e9);
    const angle = turn ? rand() * Math.PI : 0, cos = Math.cos(angle), sin = Math.sin(angle);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const gx = (x * cos - y * sin) / sx, gy = (x * sin + y * cos) / sy;
        const x0 = Math.floor(gx),
          y0 = Math.floor(gy),
          fx = smoothstep(0, 1, gx - x0),
          fy = smoothstep(0, 1, gy - y0);
        const a = latticeValue(x0, y0, seed), b = latticeValue(x0 + 1, y0, seed);
        const c = latticeValue(x0, y0 + 1, seed), d = latticeValue(x0 + 1, y0 + 1, seed);
        const top = a + (b - a) * fx, bottom = c + (d - c) * fx;
        out[y * w + x] += weight * (top + (bottom - top) * fy);
      }
    }
  }
  // Spread about the mean: summed layers crowd toward the middle.
  let sum = 0, sq = 0;
  for (const v of out) {
    sum += v;
    sq += v * v;
  }
  const mean = sum / out.length, sd = Math.sqrt(Math.max(1e-9, sq / out.length - mean * mean));
  for (let i = 0; i < out.length; i++) out[i] = clamp01(0.5 + (out[i] - mean) / (5 * sd));
  return out;
}

/**
 * A garden in golden light, out of focus: foliage (fractal patches from the recipe's light to its dark green,
 * denser and darker toward the ground) with the warm sky showing through its gaps, and the sun through the
 * leaves as soft discs in those gaps.
 */
function paintGarden(p: Plane, stops: Rgb[], lights: Rgb[], rand: () => number): number {
  const { w, h } = p;
  const sky = stops[0], lit = stops[1] ?? sky, dark = stops[2] ?? lit;
  const leaves = fractalNoise(w, h, 34, 30, 4, rand, true), shade = fractalNoise(w, h, 16, 16, 3, rand, true);
  // The leaves' share of each row: the canopy's gaps at the top, a hedge toward the ground.
  const edge = (y: number) => 1 - (0.45 + 0.4 * (y / h));
  const backlight: Rgb = [1, 0.97, 0.84], sunlit: Rgb = [0.86, 0.82, 0.45];
  for (let y = 0; y < h; y++) {
    const t = y / h, e = edge(y), glow = mix(sky, backlight, 0.5 * (1 - t));
    for (let x = 0; x < w; x++) {
      const k = y * w + x;
      // Leaves in the sun catch a warm light; those in shade and near the ground are darker.
      let leaf = mix(lit, dark, clamp01(0.2 + 1.1 * (0.5 - shade[k]) + 0.6 * t));
      leaf = mix(leaf, sunlit, 0.5 * Math.max(0, shade[k] - 0.6));
      p.data.set(mix(glow, leaf, smoothstep(e - 0.1, e + 0.1, leaves[k])), k * 3);
    }
  }
  // The sun through the gaps: only where the sky shows.
  for (let placed = 0, tries = 0; placed < 40 && tries < 600; tries++) {
    const x = rand() * w, y = rand() * h * 0.85;
    if (leaves[Math.floor(y) * w + Math.floor(x)] > edge(y) - 0.05) continue;
    const c = lights[Math.floor(rand() * lights.length)] ?? [1, 1, 1];
    light(p, x, y, w * (0.015 + rand() * 0.04), c, 0.45 + rand() * 0.45, 0.3);
    placed++;
  }
  return 3;
}

/**
 * A beach at sunset: the recipe's sky gradient down to the horizon, the sun low over it with its glow, the sea
 * (its colour, darker toward the shore) in rolling waves that catch the light, the sun's glitter path widening
 * toward the viewer, the wet sand's band and the dry sand's grain.
 */
function paintBeach(p: Plane, stops: Rgb[], lights: Rgb[], rand: () => number): number {
  const { w, h } = p;
  const horizon = Math.round(h * 0.6), shore = Math.round(h * 0.84), sunX = w * 0.62;
  const sun = lights[0] ?? [1, 0.9, 0.7], glow = lights[1] ?? [1, 0.8, 0.5];
  fillGradient(p, stops.slice(0, 4), 0, 0.6, 0, horizon);
  const sea = stops[4] ?? [0.2, 0.4, 0.55];
  const near: Rgb = [sea[0] * 0.6, sea[1] * 0.6, sea[2] * 0.7],
    far: Rgb = [sea[0] * 1.2, sea[1] * 1.1, sea[2]];
  // Waves: long and flat; the nearer, the taller.
  const waves = fractalNoise(w, h, 60, 3, 3, rand), grain = fractalNoise(w, h, 12, 6, 2, rand, true);
  for (let y = horizon; y < h; y++) {
    const inSea = y < shore, depth = inSea ? (y - horizon) / (shore - horizon) : 0;
    const base = inSea
      ? mix(far, near, depth)
      : mix([0.85, 0.7, 0.55], [0.72, 0.58, 0.45], (y - shore) / (h - shore));
    // The wet sand just above the water line mirrors the sea's colour.
    const wet = inSea ? 0 : 1 - smoothstep(0, 0.05 * h, y - shore);
    for (let x = 0; x < w; x++) {
      const k = y * w + x;
      let c = base;
      if (inSea) {
        // Distance over the water: rows near the horizon hold more waves.
        const row = Math.min(shore - 1, horizon + Math.round((shore - horizon) * Math.sqrt(depth)));
        c = mix(c, [1, 0.85, 0.7], 0.18 * Math.max(0, waves[row * w + x] - 0.45));
        c = mix(c, [0, 0.05, 0.1], 0.25 * Math.max(0, 0.45 - waves[row * w + x]));
      } else {
        c = mix(mix(c, near, 0.45 * wet), [0.2, 0.15, 0.1], 0.08 * (grain[k] - 0.5));
      }
      p.data.set(c, k * 3);
    }
  }
  // The water's edge: a thin line of foam.
  rect(p, 0, shore - 1, w, shore + 0.6, [0.95, 0.9, 0.85], 0.45);
  light(p, sunX, horizon - h * 0.02, w * 0.5, glow, 0.45, 1);
  light(p, sunX, horizon - h * 0.02, w * 0.09, sun, 1, 0.3);
  // The glitter path: short bright strokes across the water, narrow at the horizon, wide near the shore.
  for (let i = 0; i < 220; i++) {
    const depth = rand() ** 1.4, y = horizon + 1 + depth * (shore - horizon - 3);
    const spread = (0.02 + 0.22 * depth) * w, x = sunX + (rand() + rand() - 1) * spread;
    const len = w * (0.006 + rand() * 0.03) * (0.4 + depth);
    rect(p, x - len / 2, y, x + len / 2, y + 0.5 + depth, sun, (0.2 + 0.5 * rand()) * (1 - 0.5 * depth));
  }
  return 2;
}

/**
 * A city at night behind the subject: towers against the navy sky, their windows in floors and columns with a
 * share of them lit (mostly warm, some white or cool), a haze of street light toward the ground, and the
 * street's lights as large discs.
 */
function paintCity(p: Plane, stops: Rgb[], lights: Rgb[], rand: () => number): number {
  const { w, h } = p;
  fillGradient(p, stops);
  const warm = lights[0] ?? [1, 0.8, 0.4],
    white = lights[3] ?? [1, 1, 0.9],
    cool = lights[2] ?? [0.5, 0.8, 1];
  for (let i = 0; i < 14; i++) {
    const bw = w * (0.1 + rand() * 0.14), x = rand() * w - bw / 2;
    const top = h * (0.2 + rand() * 0.35);
    const shade = 0.04 + rand() * 0.05;
    rect(p, x, top, x + bw, h, [shade, shade * 1.1, shade * 1.7]);
    // Floors and columns of windows: far enough apart that each stays a point of light out of focus.
    const dx = 5 + Math.floor(rand() * 3), dy = 7 + Math.floor(rand() * 3), lit = 0.2 + rand() * 0.35;
    for (let wy = top + 4; wy < h - 4; wy += dy) {
      for (let wx = x + 3; wx < x + bw - 4; wx += dx) {
        if (rand() >= lit) continue;
        const pick = rand(), c = pick < 0.75 ? warm : pick < 0.92 ? white : cool;
        rect(p, wx, wy, wx + 2, wy + 3, c, 0.55 + 0.4 * rand());
      }
    }
  }
  // Street light hazing up from below the frame.
  light(p, w * 0.5, h * 1.05, w * 0.9, warm, 0.25, 1);
  for (let i = 0; i < 30; i++) {
    const c = lights[Math.floor(rand() * lights.length)] ?? [1, 1, 1];
    light(p, rand() * w, h * (0.45 + rand() * 0.55), w * (0.03 + rand() * 0.06), c, 0.45 + rand() * 0.4);
  }
  return 2;
}

/**
 * A hotel lounge in the evening, out of focus: a wall of dark wood panels (each its own tone, a lit moulding
 * along one side), the back bar's shelves with bottles catching the light and a warm strip under each shelf,
 * table lamps glowing at both sides, bulbs hanging in the dark above, and a tufted banquette's back along the
 * bottom with the lamps' light on its rim.
 */
function paintLounge(p: Plane, stops: Rgb[], lights: Rgb[], rand: () => number): number {
  const { w, h } = p;
  const top = stops[0], bottom = stops[1] ?? top;
  const lamp = lights[0] ?? [1, 0.8, 0.5], amber = lights[1] ?? lamp, pale = lights[2] ?? lamp;
  const grain = fractalNoise(w, h, 40, 90, 3, rand);
  // The wall: panels a fifth of the width apart, each a shade lighter or darker, with the wood's long grain.
  const panel = w / 5, tones = Array.from({ length: 5 }, () => 0.85 + 0.3 * rand());
  for (let y = 0; y < h; y++) {
    const base = gradientAt([top, bottom], y / h);
    for (let x = 0; x < w; x++) {
      const k = y * w + x, tone = tones[Math.floor(x / panel)] * (0.88 + 0.24 * grain[k]);
      p.data.set([base[0] * tone, base[1] * tone, base[2] * tone], k * 3);
    }
  }
  for (let x = panel; x < w; x += panel) {
    rect(p, x - 1, 0, x, h, pale, 0.1);
    rect(p, x, 0, x + 1.5, h, [0, 0, 0], 0.35);
  }
  // The back bar at both sides: shelves lit from below, bottles standing on them.
  for (const [x0, x1] of [[0, 0.34 * w], [0.66 * w, w]]) {
    for (const sy of [0.3, 0.4, 0.5].map((f) => f * h)) {
      for (let r = 1; r <= 6; r++) rect(p, x0, sy + r, x1, sy + r + 1, amber, 0.22 * (1 - r / 7));
      rect(p, x0, sy - 1, x1, sy + 1, [0.12, 0.07, 0.04], 0.8);
      for (let x = x0 + 2; x < x1 - 4; x += 4 + rand() * 5) {
        const bw = 2.5 + rand() * 2.5, bh = 9 + rand() * 12;
        const glass = mix(bottom, rand() < 0.5 ? amber : rand() < 0.5 ? [0.35, 0.5, 0.25] : pale, 0.45);
        rect(p, x, sy - 1 - bh, x + bw, sy - 1, glass, 0.85);
        rect(p, x + 0.5, sy - 1 - bh * 0.85, x + 1.3, sy - 3, pale, 0.35 + 0.4 * rand());
      }
    }
  }
  // Bulbs hanging in the dark above: discs of light, smaller the farther back.
  for (let i = 0; i < 9; i++) {
    const c = lights[Math.floor(rand() * lights.length)] ?? lamp;
    light(p, rand() * w, h * (0.03 + rand() * 0.2), w * (0.015 + rand() * 0.03), c, 0.5 + rand() * 0.4, 0.3);
  }
  // Table lamps at both sides: the glow on the wall around them, the shade lit from inside.
  for (const cx of [0.11 * w, 0.9 * w]) {
    const cy = 0.63 * h;
    light(p, cx, cy - 8, w * 0.32, amber, 0.35, 1);
    light(p, cx, cy - 22, w * 0.12, lamp, 0.3, 1);
    for (let r = 0; r < 16; r++) {
      const half = 7 + (r / 16) * 5;
      rect(p, cx - half, cy - 16 + r, cx + half, cy - 15 + r, mix(lamp, pale, 0.4 * (1 - r / 16)), 0.92);
    }
    rect(p, cx - 1, cy, cx + 1, cy + 20, [0.1, 0.06, 0.03], 0.8);
  }
  // The banquette: dark leather, tufted in vertical channels, its rounded rim catching the lamps' light.
  const seat = 0.74 * h, leather = mix(bottom, amber, 0.1);
  for (let y = Math.floor(seat); y < h; y++) {
    const rim = 1 - smoothstep(0, 6, y - seat);
    for (let x = 0; x < w; x++) {
      const k = y * w + x,
        channel = 0.9 + 0.2 * Math.abs(Math.sin((Math.PI * x) / 34)) + 0.1 * (grain[k] - 0.5);
      const c: Rgb = [leather[0] * channel, leather[1] * channel, leather[2] * channel];
      p.data.set(mix(c, amber, 0.3 * rim), k * 3);
    }
  }
  return 4;
}

/**
 * Lights far behind the subject, out of focus: the recipe's gradient dimly lit in broad patches (the room or
 * street the lights hang in), and discs of light at three distances: many small ones far back, fewer mid-sized
 * ones, and a few large faint ones nearest the lens, each a little brighter along its rim, as a lens draws them.
 */
function paintBokeh(p: Plane, stops: Rgb[], lights: Rgb[], rand: () => number): number {
  const { w, h } = p;
  fillGradient(p, stops);
  const patches = fractalNoise(w, h, 70, 70, 3, rand, true);
  for (let k = 0; k < w * h; k++) {
    const f = 0.85 + 0.3 * patches[k];
    for (let ch = 0; ch < 3; ch++) p.data[k * 3 + ch] *= f;
  }
  const layers = [
    { n: 22, r: [0.025, 0.045], a: [0.5, 0.9] },
    { n: 14, r: [0.05, 0.08], a: [0.4, 0.7] },
    { n: 5, r: [0.1, 0.15], a: [0.15, 0.25] },
  ];
  for (const { n, r, a } of layers) {
    for (let i = 0; i < n; i++) {
      const c = lights[Math.floor(rand() * lights.length)] ?? [1, 1, 1];
      const x = rand() * w, y = rand() * h, radius = w * (r[0] + rand() * (r[1] - r[0]));
      const alpha = a[0] + rand() * (a[1] - a[0]);
      light(p, x, y, radius, c, alpha, 0.25, 0.3);
    }
  }
  return 2;
}

/** The named places, painted from what a photo of them holds; every other setting by its recipe's kind. */
const PLACES: Readonly<
  Record<string, (p: Plane, stops: Rgb[], lights: Rgb[], rand: () => number) => number>
> = {
  "beach-sunset": paintBeach,
  "city-night": paintCity,
  "golden-garden": paintGarden,
  "luxury-lounge": paintLounge,
};

/**
 * Paints setting `id`'s backdrop on the plane and returns how far out of focus it is drawn: a blur sigma in the
 * plane's pixels. `head`: the head's centre on the plane (a studio paper's light sits behind it).
 */
export function paintBackdrop(id: string, b: BackdropRecipe, p: Plane, head: [number, number]): number {
  const stops = b.colors.map(rgbf);
  const lights = (b.lights ?? []).map(rgbf);
  const rand = rng(id.length * 7919 + id.charCodeAt(0));
  const place = PLACES[id];
  if (place) return place(p, stops, lights, rand);
  if (b.kind === "solid") {
    fillGradient(p, [stops[0]]);
    return 0;
  }
  fillGradient(p, stops);
  if (b.kind === "gradient") {
    // A soft studio light behind the head.
    light(p, head[0], head[1], p.w * 0.75, [1, 1, 1], 0.18, 1);
    return 1;
  }
  // Bokeh, or a scene with no painter of its own.
  return paintBokeh(p, stops, lights, rand);
}
