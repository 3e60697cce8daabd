/** Lipstick: the lip mask, the photo's light on the lips, and the finish (matte, satin, gloss). */
import type { CatalogEntry } from "../../styling/catalog.ts";
import { blendLayer, type Canvas, meanLuminance } from "./blend.ts";
import { hexToLinear, linearToLab, SRGB_TO_LINEAR } from "./color.ts";
import { type FaceGeometry, pick } from "./face-geometry.ts";
import { LIPS_INNER, LIPS_OUTER } from "./landmarks.ts";
import { clamp01 } from "./makeup-layer.ts";
import { boundsOf, createMask, feather, fillPolygon, type Mask } from "./masks.ts";
import { LIP_FINISH } from "./recipes.ts";
import { skinMeanLinear } from "./skin-tone.ts";

/**
 * The lip mask: the mesh's outer lip, feathered, minus the real mouth
 * opening. The mesh's inner outline is only a guide: on a closed mouth it
 * encloses lip (painted), on a smile the teeth reach past it (kept). Each
 * pixel near the mouth is classed by colour against the lip's own mean:
 * teeth are lighter and greyer than lip (or, around the opening, far
 * lighter and yellower: teeth in warm light), the mouth's cavity far darker.
 * The classes are smoothed over a pixel, so the lipstick's edge along the
 * teeth is as soft as the photo's.
 */
export function lipMask(img: Canvas, g: FaceGeometry): Mask {
  const outer = pick(g, LIPS_OUTER), inner = pick(g, LIPS_INNER);
  const sigma = Math.max(0.8, 0.006 * g.fw);
  const rect = boundsOf(outer, sigma * 4, img.width, img.height);
  const m = createMask(rect);
  fillPolygon(m, outer);
  feather(m, sigma);
  const hole = createMask(rect);
  fillPolygon(hole, inner);
  feather(hole, sigma * 0.5);
  const lip = lipColour(img, m, hole);
  const lipHue = hueOf(lip.a, lip.b);
  // Where teeth can be: the mesh's opening and a band around it (a wide
  // smile's teeth reach well past the mesh's inner outline, over what it
  // takes for the lips).
  const mouth = createMask(rect);
  fillPolygon(mouth, inner);
  feather(mouth, TEETH_REACH * g.fw);
  const d = img.data;
  const open = createMask(rect);
  for (let r = 0; r < m.h; r++) {
    for (let c = 0; c < m.w; c++) {
      const k = r * m.w + c;
      if (m.data[k] <= 0) continue;
      const i = ((m.y + r) * img.width + m.x + c) * 3;
      const [L, a, b] = linearToLab(SRGB_TO_LINEAR[d[i]], SRGB_TO_LINEAR[d[i + 1]], SRGB_TO_LINEAR[d[i + 2]]);
      // Teeth: lighter than the lip and much less red (warm light makes them yellow, not red).
      const grey = clamp01((L - lip.L - 3) / 5) * clamp01((0.75 * lip.a - a) / (0.15 * lip.a + 1));
      // In warm light teeth can be as red as the skin and only a little less red than the lip
      // (sample4@1216: a* 14-24 against the lip's 30): near the opening, far lighter than the lip
      // and yellower than it (its hue turned toward b*) is tooth too.
      const yellow = L > lip.L + 8 && mouth.data[k] > 0
        ? clamp01(mouth.data[k] * 20) * clamp01((L - lip.L - 8) / 10) *
          clamp01((hueOf(a, b) - lipHue - 2) / 4)
        : 0;
      const teeth = Math.max(grey, yellow);
      // The cavity (and the tongue's shadow) inside the opening: much darker than lip.
      const cavity = hole.data[k] * clamp01((0.7 * lip.L - L) / (0.15 * lip.L + 1));
      // Inside the mesh's opening, only what does not look like lip is the opening.
      const lipLike = Math.hypot(L - lip.L, a - lip.a, b - lip.b) < 16 ? 1 : 0;
      open.data[k] = clamp01(Math.max(teeth, cavity, hole.data[k] * (1 - lipLike) * 0.6));
    }
  }
  // Classed a pixel at a time, the opening's edge follows every pixel that
  // falls either side of a colour threshold: a ragged lipstick edge along
  // the teeth, and single painted pixels dotted over them. Smoothed over a
  // pixel (only ever widened: a tooth classed as such stays bare), the edge
  // is soft as the photo's own and the dots go.
  const raw = open.data.slice();
  feather(open, OPEN_SMOOTH);
  for (let k = 0; k < m.data.length; k++) m.data[k] *= 1 - clamp01(Math.max(raw[k], open.data[k]));
  return m;
}

/** Hue angle (degrees) of a Lab colour's a*, b*. */
const hueOf = (a: number, b: number) => Math.atan2(b, a) * 180 / Math.PI;

/** Gaussian sigma (px) the mouth opening's per-pixel classes are smoothed over. */
const OPEN_SMOOTH = 1;

/** How far past the mesh's inner lip outline teeth are looked for (Gaussian sigma, face widths). */
const TEETH_REACH = 0.03;

/**
 * The lip's typical Lab: pixels well inside the outer outline and outside the
 * mesh's opening, sorted by lightness, averaged between the 20th and 60th
 * percentile (teeth that reach past the opening and highlights are the
 * lightest, creases the darkest; neither may move the reference).
 */
function lipColour(img: Canvas, m: Mask, hole: Mask): { L: number; a: number; b: number } {
  const labs: [number, number, number][] = [];
  const d = img.data;
  for (let r = 0; r < m.h; r++) {
    for (let c = 0; c < m.w; c++) {
      const k = r * m.w + c;
      if (m.data[k] < 0.9 || hole.data[k] > 0.02) continue;
      const i = ((m.y + r) * img.width + m.x + c) * 3;
      labs.push(linearToLab(SRGB_TO_LINEAR[d[i]], SRGB_TO_LINEAR[d[i + 1]], SRGB_TO_LINEAR[d[i + 2]]));
    }
  }
  if (labs.length < 10) return { L: 50, a: 20, b: 10 };
  labs.sort((p, q) => p[0] - q[0]);
  const from = Math.floor(labs.length * 0.2), to = Math.max(from + 1, Math.floor(labs.length * 0.6));
  const s = [0, 0, 0];
  for (let i = from; i < to; i++) for (let c = 0; c < 3; c++) s[c] += labs[i][c];
  const n = to - from;
  return { L: s[0] / n, a: s[1] / n, b: s[2] / n };
}

/** Linear luminance a well-lit, mid-toned face's skin has; lipstick is lit relative to it. */
const REFERENCE_SKIN_Y = 0.36;

/**
 * How the photo's light scales a colour: the skin's luminance against a
 * well-lit reference (softened, bounded), and a mild share of the skin's
 * colour cast (warm or cool light), so a shade sits in the photo instead of
 * glowing on a dim or tinted one.
 */
export function photoLight(img: Canvas, g: FaceGeometry): [number, number, number] {
  const skin = skinMeanLinear(img, g);
  const y = 0.2126 * skin[0] + 0.7152 * skin[1] + 0.0722 * skin[2];
  const exposure = Math.min(1.15, Math.max(0.6, (y / REFERENCE_SKIN_Y) ** 0.6));
  // Typical skin chromaticity under neutral light (linear r/Y and b/Y); a quarter of the deviation is light.
  const rc = clamp((skin[0] / y / 1.55) ** 0.25, 0.93, 1.07),
    bc = clamp((skin[2] / y / 0.6) ** 0.25, 0.93, 1.07);
  return [exposure * rc, exposure, exposure * bc];
}

const clamp = (v: number, lo: number, hi: number) => v < lo ? lo : v > hi ? hi : v;

/**
 * How strongly a lipstick covers at intensity t: product is opaque, so even
 * the default 60 lays down most of the shade (0.94), 100 all of it, 0 none.
 */
export const lipOpacity = (t: number) => t <= 0 ? 0 : 1 - (1 - clamp01(t)) ** 3;

export function lipsLayer(img: Canvas, g: FaceGeometry, entry: CatalogEntry, t: number): void {
  const m = lipMask(img, g);
  const ym = Math.max(0.005, meanLuminance(img, m, 0.5));
  const finish = LIP_FINISH[entry.id] ?? "satin";
  const gloss = finish === "gloss" ? 1.4 : finish === "satin" ? 0.45 : 0;
  const opacity = lipOpacity(t);
  if (!entry.hex) {
    // Clear gloss: keep the colour, add shine on the highlights.
    blendLayer(img, m, opacity, (px) => {
      const y = 0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2];
      const s = 1.6 * Math.max(0, y - 1.15 * ym) + 0.04 * y / ym * ym;
      px[0] = px[0] * 1.04 + s;
      px[1] = px[1] * 1.04 + s;
      px[2] = px[2] * 1.04 + s;
    });
    return;
  }
  const light = photoLight(img, g);
  const sw = hexToLinear(entry.hex);
  const c = [sw[0] * light[0], sw[1] * light[1], sw[2] * light[2]];
  const yc = Math.max(0.002, 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]);
  // Every finish keeps the lip's own lines and shading (a flattened texture reads as a
  // sticker; matte differs only by having no shine). Lightness is a cube root of
  // luminance, so a darker shade would shrink the visible texture by (yc/ym)^(1/3):
  // the luminance ratio is raised by the inverse to keep it.
  const texture = Math.min(1.8, Math.max(1, (ym / yc) ** (1 / 3)));
  const d = img.data;
  // Normalise the texture term so the mean lip lands on the shade as lit.
  let norm = 1;
  if (texture !== 1) {
    let sum = 0, n = 0;
    for (let r = 0; r < m.h; r++) {
      for (let col = 0; col < m.w; col++) {
        const w = m.data[r * m.w + col];
        if (w < 0.5) continue;
        const i = ((m.y + r) * img.width + m.x + col) * 3;
        const lum = 0.2126 * SRGB_TO_LINEAR[d[i]] + 0.7152 * SRGB_TO_LINEAR[d[i + 1]] +
          0.0722 * SRGB_TO_LINEAR[d[i + 2]];
        sum += w * (lum / ym) ** texture;
        n += w;
      }
    }
    if (n > 0 && sum > 0) norm = n / sum;
  }
  blendLayer(img, m, opacity, (px) => {
    const lum = 0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2];
    const ratio = lum / ym;
    let k = texture === 1 ? ratio : norm * ratio ** texture;
    if (k > 2.2) k = 2.2;
    const spec = gloss * Math.max(0, lum - 1.3 * ym);
    px[0] = c[0] * k + spec;
    px[1] = c[1] * k + spec;
    px[2] = c[2] * k + spec;
  });
}
