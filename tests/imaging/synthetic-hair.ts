/**
 * A synthetic head with a known hair region, for measuring the hair recolour
 * against ground truth: a real face mesh (found on a demo portrait) with a
 * flat skin-coloured face oval, dark-brown hair with strand texture around it
 * (falling to the shoulders), a light scalp parting, a plain background and a
 * person matte that covers head, hair and shoulders. Also the measures the
 * hair test and bench/hair-quality.bench.ts report.
 */
import { deltaE, type Lab } from "../../server/imaging/local/color.ts";
import type { Canvas } from "../../server/imaging/local/blend.ts";
import type { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { type FaceGeometry, faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { FACE_OVAL } from "../../server/imaging/local/landmarks.ts";
import type { PersonMask } from "../../server/imaging/local/person-mask.ts";
import { cropFace, DARK_HAIR, decode, labOf, meanLab, polygonPixels } from "./fixtures.ts";

export interface SyntheticHead {
  img: Canvas;
  g: FaceGeometry;
  person: PersonMask;
  /** 1 where the pixel is hair (the scalp parting excluded). */
  hair: Uint8Array;
  /** 1 inside the face oval. */
  face: Uint8Array;
  /** The parting: x, and its top and bottom rows. */
  parting: { x: number; y0: number; y1: number };
  /** Hair's top row (the crown). */
  crownY: number;
  /** 1 where the pixel is a highlight (blonde head), or a blue-lit highlight (lit head). */
  highlight: Uint8Array;
  /** 1 where the pixel is a pale grey-olive strand (pale head only). */
  paleStrand: Uint8Array;
  /** 1 where the pixel is one of the lighter, warmer lengths (ombre head only). */
  ombre: Uint8Array;
  /** 1 where the pixel is the person's skin off the face: the neck, chest and shoulders. */
  body: Uint8Array;
}

/** Which synthetic head (see syntheticHead); by default dark-brown loose strands. */
export interface HeadKind {
  braids?: boolean;
  blonde?: boolean;
  pale?: boolean;
  ombre?: boolean;
  striped?: boolean;
  lit?: boolean;
  brown?: boolean;
}

/**
 * The head as the test photo frames it (the mesh of the dark-haired demo face,
 * on its own crop). `braids`: the hair over the crown is cornrows instead of
 * loose strands: rows of braid lobes (each lit on top, dark in its folds)
 * running from the hairline back, with 2-px lines of scalp between the rows.
 * `blonde`: the strands are blonde over light-brown lowlights (the darker
 * strands), with broad pale highlights where curls catch the light: a pinkish
 * near-white as pale as lit skin, as on the curly blonde demo portrait.
 * `pale`: dark-brown hair with bands of pale olive strands (L* 35-50, 10-20 px
 * wide) over the crown and along the lengths below the eyes, a minority the
 * hair colour samples above the forehead and beside the temples do not hold
 * (as the lights beside the ear and the sheen of olive-brown hair on the demo
 * portraits, left grey-green in the dyed hair before).
 * `ombre`: dark-brown hair whose lengths, from a little above the chin down,
 * turn a lighter, warmer brown (L* 50-65, about ΔE 13 from the chest's skin
 * they fall over), with the same strands: the lengths the hair colour samples
 * above the forehead and beside the temples do not hold (the bench portrait's
 * ombre, sample6@1402's lighter lengths).
 * `striped`: light-brown hair whose lengths, from a little above the chin
 * down, are bands of its strands (L* about 40-50) alternating with smooth
 * golden bands (L* about 55, 12 px wide, as out-of-focus light strands are on
 * sample1@1438), the golden ones within about ΔE 10 of the bands beside them:
 * the lengths (marked in `ombre`) dyed in stripes before.
 * `lit`: dark-brown hair with three highlights lit blue (LIT_BLUE, as a screen or a neon sign lights dark
 * hair from the side: L* about 25-45, hue about 290 degrees), each 0.12 face widths long and 0.05 wide,
 * with hair all round them: beside each temple and at the crown (marked in `highlight`). The colour
 * model, sampling the hair above the forehead and beside the temples, holds no such colour (as sample3@1372's
 * blue-lit highlights, left blue in her dyed hair before).
 * `brown`: the striped head's light-brown strands (L* about 40-50) without its golden bands: hair a golden
 * shade lightens without bleaching.
 */
export async function syntheticHead(engine: FaceEngine, kind: HeadKind = {}): Promise<SyntheticHead> {
  const {
    braids = false,
    blonde = false,
    pale = false,
    ombre = false,
    striped = false,
    lit = false,
    brown = false,
  } = kind;
  const photo = await decode(await cropFace(DARK_HAIR));
  const g = faceGeometry((await engine.detect(photo))[0].mesh);
  const { width: W, height: H } = photo;
  const data = new Uint8Array(W * H * 3);
  const face = new Uint8Array(W * H), hair = new Uint8Array(W * H), highlight = new Uint8Array(W * H);
  const paleStrand = new Uint8Array(W * H), ombreAt = new Uint8Array(W * H);
  const bodySkin = new Uint8Array(W * H);
  for (const p of polygonPixels(photo, FACE_OVAL.map((i) => g.pts[i]), 0, 0.5)) face[p] = 1;
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  // Strands: a brightness per column, smoothed over 2 px (a few px wide strands).
  const raw = Array.from({ length: W }, () => rnd());
  const streak = raw.map((_, x) => (raw[Math.max(0, x - 1)] + raw[x] + raw[Math.min(W - 1, x + 1)]) / 3);
  const cx = g.center[0], eyeY = g.eyeCenter[1], chinY = g.pts[152][1], fw = g.fw, fh = g.fh;
  const crownY = Math.round(eyeY - 0.2 * fh - 1.0 * fh);
  const parting = { x: Math.round(cx), y0: crownY + 2, y1: Math.round(g.pts[10][1]) };
  // The blue-lit highlights (`lit`): centres, as slanted ellipses along the strands.
  const litSpots = [[cx - 0.64 * fw, eyeY + 0.25 * fh], [cx + 0.64 * fw, eyeY + 0.1 * fh], [
    cx + 0.35 * fw,
    crownY + 0.3 * fh,
  ]];
  const inLitSpot = (x: number, y: number) =>
    litSpots.some(([sx, sy]) => {
      const u = (x - sx) / (0.08 * fw), v = (y - sy) / (0.035 * fw);
      return u * u + v * v <= 1;
    });
  const personGrid = (x: number, y: number) => {
    const ex = (x - cx) / (1.05 * fw), ey = (y - (eyeY - 0.2 * fh)) / (1.0 * fh);
    const head = ex * ex + ey * ey <= 1;
    // Hair falls beside the face and the neck (the neck itself is skin).
    const sides = Math.abs(x - cx) < 0.78 * fw && y > eyeY - 0.2 * fh && y < chinY + 0.35 * fh &&
      !(y > chinY - 0.1 * fh && Math.abs(x - cx) < 0.3 * fw);
    const body = y > chinY - 0.05 * fh && Math.abs(x - cx) < (y > chinY + 0.3 * fh ? 1.3 * fw : 0.35 * fw);
    return { hairHere: head || sides, person: head || sides || body };
  };
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const p = y * W + x, o = p * 3, n = (rnd() - 0.5) * 6;
      const { hairHere, person } = personGrid(x, y);
      let rgb: [number, number, number];
      if (face[p]) rgb = [224 + n, 172 + n, 140 + n];
      else if (hairHere && Math.abs(x - parting.x) <= 1 && y >= parting.y0 && y <= parting.y1) {
        rgb = [196 + n, 150 + n, 128 + n];
      } else if (braids && hairHere && y < eyeY - 0.2 * fh && (x - parting.x + 1000 * BRAID) % BRAID < 2) {
        rgb = [196 + n, 150 + n, 128 + n];
      } else if (hairHere) {
        hair[p] = 1;
        let v = 0.6 + 0.8 * streak[x] + (rnd() - 0.5) * 0.15;
        if (braids && y < eyeY - 0.2 * fh) {
          // A braid lobe every BRAID px down the row, alternating sides (the weave).
          const across = ((x - parting.x + 1000 * BRAID) % BRAID) / BRAID;
          const side = across < 0.5 ? 0 : BRAID / 2;
          const along = ((y + side) % BRAID) / BRAID;
          v = 0.35 + 1.3 * Math.sin(Math.PI * along) * Math.sin(Math.PI * across) + (rnd() - 0.5) * 0.15;
        }
        rgb = [62 * v, 44 * v, 32 * v];
        // Where the hair colours are not sampled (see paleBand): the crown and the lengths below the eyes.
        if (pale && (y < g.pts[10][1] - 0.45 * fh || y > eyeY) && paleBand(x, y)) {
          paleStrand[p] = 1;
          const s = 0.7 + 0.3 * streak[x] + (rnd() - 0.5) * 0.1;
          rgb = [130 * s, 108 * s, 72 * s];
        }
        if (striped || brown) rgb = [rgb[0] * LIGHT_BROWN, rgb[1] * LIGHT_BROWN, rgb[2] * LIGHT_BROWN];
        if (striped) {
          if (y > chinY - 0.35 * fh) {
            ombreAt[p] = 1;
            if (((x + 1000 * STRIPE) % (2 * STRIPE)) < STRIPE) {
              rgb = [GOLDEN[0] + n / 6, GOLDEN[1] + n / 6, GOLDEN[2] + n / 6];
            }
          }
        }
        // The lengths lighten over 0.2 face heights, from 0.35 above the chin.
        const toOmbre = ombre ? Math.max(0, Math.min(1, (y - (chinY - 0.35 * fh)) / (0.2 * fh))) : 0;
        if (toOmbre > 0) {
          if (toOmbre >= 1) ombreAt[p] = 1;
          const s = 0.82 + 0.3 * streak[x] + (rnd() - 0.5) * 0.1;
          rgb = rgb.map((v, c) => v + (OMBRE[c] * s - v) * toOmbre) as [number, number, number];
        }
        if (lit && inLitSpot(x, y)) {
          highlight[p] = 1;
          rgb = [LIT_BLUE[0] * v, LIT_BLUE[1] * v, LIT_BLUE[2] * v];
        }
        if (blonde) {
          // Curls catching the light: diagonal bands a quarter of a period wide, over lowlights on most strands.
          const lit = ((x + 0.6 * y) % HIGHLIGHT_PERIOD + HIGHLIGHT_PERIOD) % HIGHLIGHT_PERIOD <
            HIGHLIGHT_PERIOD / 4;
          const s = 0.85 + 0.3 * (v - 0.6) / 0.8;
          if (lit) highlight[p] = 1;
          rgb = lit
            ? [244 * s, 201 * s, 176 * s]
            : streak[x] < 0.5
            ? [128 * s, 96 * s, 66 * s]
            : [214 * s, 174 * s, 112 * s];
        }
      } else if (person) {
        bodySkin[p] = 1;
        rgb = [214 + n, 160 + n, 128 + n];
      } else rgb = [120 + n, 130 + n, 145 + n];
      data[o] = Math.max(0, Math.min(255, rgb[0]));
      data[o + 1] = Math.max(0, Math.min(255, rgb[1]));
      data[o + 2] = Math.max(0, Math.min(255, rgb[2]));
    }
  }
  const step = 4, mw = Math.ceil(W / step), mh = Math.ceil(H / step);
  const grid = new Float32Array(mw * mh);
  for (let j = 0; j < mh; j++) {
    for (let i = 0; i < mw; i++) {
      grid[j * mw + i] = personGrid((i + 0.5) * step, (j + 0.5) * step).person ? 1 : 0;
    }
  }
  return {
    img: { data, width: W, height: H },
    g,
    person: { w: mw, h: mh, step, data: grid },
    hair,
    face,
    parting,
    crownY,
    highlight,
    paleStrand,
    ombre: ombreAt,
    body: bodySkin,
  };
}

/** The lit head's blue highlights, sRGB at strand brightness 1 (see syntheticHead). */
const LIT_BLUE = [52, 60, 118];

/**
 * The striped and brown heads (see syntheticHead): their strands' brightness against the dark head's; the striped
 * head's smooth golden bands (sRGB) and their width, px.
 */
const LIGHT_BROWN = 1.6, STRIPE = 12;
const GOLDEN = [200, 150, 100];

/**
 * Stripes in dyed lengths: over the rows of the pixels in `at`, the share changed by more than ΔE 5 and the
 * number of changes between dyed and undyed per 100 px along the rows (evenly dyed or undyed lengths: near 0).
 */
export function stripeFigures(before: Canvas, after: Canvas, at: Uint8Array) {
  const W = before.width;
  let n = 0, dyed = 0, changes = 0;
  for (let y = 0; y < before.height; y++) {
    let prev = -1;
    for (let x = 0; x < W; x++) {
      const p = y * W + x;
      if (!at[p]) {
        prev = -1;
        continue;
      }
      const on = deltaE(labOf(before, p), labOf(after, p)) > 5 ? 1 : 0;
      n++, dyed += on;
      if (prev >= 0 && on !== prev) changes++;
      prev = on;
    }
  }
  return { dyed: dyed / Math.max(1, n), changesPer100: 100 * changes / Math.max(1, n) };
}

/** The ombre head's lengths, sRGB at strand brightness 1 (see syntheticHead). */
const OMBRE = [186, 136, 88];

/** The pale head's bands of olive strands: 10-20 px wide, a few per head, slanted like combed hair. */
function paleBand(x: number, y: number): boolean {
  const u = x + 0.3 * y;
  return Math.sin(u / 11) * Math.sin(u / 53) > 0.55;
}

/** Period of the blonde head's highlight bands, px. */
const HIGHLIGHT_PERIOD = 90;

/** Width of a cornrow (scalp line included) and length of one braid lobe, px. */
const BRAID = 16;

/** Standard deviation of L* over `pixels`. */
export function lightnessSpread(img: Canvas, pixels: number[]): number {
  const L = pixels.map((p) => labOf(img, p)[0]);
  const m = L.reduce((a, v) => a + v, 0) / L.length;
  return Math.sqrt(L.reduce((a, v) => a + (v - m) ** 2, 0) / L.length);
}

/**
 * Share of `pixels` whose a*b* is more than 0.4 of the shade's chroma from the
 * shade's a*b* at the pixel's own lightness (scaled down below the shade's L*:
 * shadows hold less colour): hair left as it was, or a pale wash of the old
 * colour and the shade (the blotches of light hair dyed darker).
 */
export function offShade(img: Canvas, pixels: number[], target: Lab): number {
  const tC = Math.hypot(target[1], target[2]);
  const off = pixels.filter((p) => {
    const l = labOf(img, p), k = Math.min(1, l[0] / target[0]);
    return Math.hypot(l[1] - k * target[1], l[2] - k * target[2]) > 0.4 * tC;
  });
  return off.length / Math.max(1, pixels.length);
}

/**
 * Share of `pixels` left grey or green in hair dyed toward `target`: chroma
 * under a third of the shade's (scaled down below its L*, as offShade), or a
 * hue more than 30 degrees from the shade's.
 */
export function greyShare(img: Canvas, pixels: number[], target: Lab): number {
  const tC = Math.hypot(target[1], target[2]);
  const grey = pixels.filter((p) => {
    const l = labOf(img, p), k = Math.min(1, l[0] / target[0]);
    return Math.hypot(l[1], l[2]) < tC * k / 3 || hueError(l, target) > 30;
  });
  return grey.length / Math.max(1, pixels.length);
}

/** L* spread around its 5x5 local mean over the box [x0, x1) x [y0, y1): the fine light and dark of strands. */
export function strandSpread(img: Canvas, x0: number, x1: number, y0: number, y1: number): number {
  const L = (x: number, y: number) => labOf(img, y * img.width + x)[0];
  let s = 0, n = 0;
  for (let y = Math.max(2, Math.round(y0) + 2); y < Math.min(img.height - 2, y1 - 2); y++) {
    for (let x = Math.max(2, Math.round(x0) + 2); x < Math.min(img.width - 2, x1 - 2); x++) {
      let m = 0;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) m += L(x + dx, y + dy);
      s += (L(x, y) - m / 25) ** 2;
      n++;
    }
  }
  return Math.sqrt(s / Math.max(1, n));
}

/** Hue angle difference in degrees. */
export function hueError(a: Lab, b: Lab): number {
  const d = Math.atan2(a[2], a[1]) - Math.atan2(b[2], b[1]);
  return Math.abs(Math.atan2(Math.sin(d), Math.cos(d))) * 180 / Math.PI;
}

/** Hair pixels of the synthetic head within `n` px of the face (by a square neighbourhood). */
export function hairNearFace(h: SyntheticHead, n: number): number[] {
  const { width: W, height: H } = h.img, out: number[] = [];
  for (let y = n; y < H - n; y++) {
    for (let x = n; x < W - n; x++) {
      const p = y * W + x;
      if (!h.hair[p]) continue;
      let near = false;
      for (let dy = -n; dy <= n && !near; dy += 2) {
        for (let dx = -n; dx <= n; dx += 2) {
          if (h.face[p + dy * W + dx]) {
            near = true;
            break;
          }
        }
      }
      if (near) out.push(p);
    }
  }
  return out;
}

/** The figures the hair recolour is judged by, on a synthetic head recoloured to `target`. */
export function hairFigures(h: SyntheticHead, after: Canvas, target: Lab) {
  const { width: W } = h.img, g = h.g;
  const all: number[] = [], roots: number[] = [], lengths: number[] = [];
  const rootsEnd = h.crownY + 0.2 * g.fh, lengthsFrom = g.eyeCenter[1], lengthsTo = g.pts[152][1];
  for (let p = 0; p < h.hair.length; p++) {
    if (!h.hair[p]) continue;
    const y = Math.floor(p / W), x = p % W;
    // Away from the parting (its own measure), the face edge (idem) and the hair's outline.
    if (Math.abs(x - h.parting.x) < 20) continue;
    all.push(p);
    if (y > h.crownY + 8 && y < rootsEnd) roots.push(p);
    if (y > lengthsFrom && y < lengthsTo) lengths.push(p);
  }
  const mean = meanLab(after, all);
  const chroma = Math.hypot(mean[1], mean[2]);
  // Parting: the hair 2..6 px beside the scalp line, and the hair 10..18 px from it.
  const beside: number[] = [], away: number[] = [];
  for (let y = h.parting.y0 + 10; y < h.parting.y1 - 10; y++) {
    for (let dx = 2; dx <= 18; dx++) {
      for (const x of [h.parting.x - dx, h.parting.x + dx]) {
        const p = y * W + x;
        if (!h.hair[p]) continue;
        if (dx <= 6) beside.push(p);
        else if (dx >= 10) away.push(p);
      }
    }
  }
  const near = hairNearFace(h, 12);
  const changed = near.filter((p) => {
    const a = labOf(h.img, p), b = labOf(after, p);
    return deltaE(b, target) < deltaE(a, target) - 8;
  });
  const skin: number[] = [];
  for (let p = 0; p < h.face.length; p++) if (h.face[p] && p % 7 === 0) skin.push(p);
  const skinChange = skin.reduce((a, p) => a + deltaE(labOf(h.img, p), labOf(after, p)), 0) /
    skin.length;
  const change = (px: number[]) =>
    px.reduce((a, p) => a + deltaE(labOf(h.img, p), labOf(after, p)), 0) / px.length;
  return {
    /** L* spread in the hair after / before (strands kept: >= 0.8). */
    strandContrast: lightnessSpread(after, all) / lightnessSpread(h.img, all),
    /** Mean hair chroma after / the swatch's. */
    chromaRatio: chroma / Math.hypot(target[1], target[2]),
    /** Mean hair hue vs the swatch's, degrees. */
    hueError: hueError(mean, target),
    /** ΔE between the hair beside the parting and the hair away from it (a seam or halo shows here). */
    partingSeam: deltaE(meanLab(after, beside), meanLab(after, away)),
    /** The same before (the texture alone). */
    partingSeamBefore: deltaE(meanLab(h.img, beside), meanLab(h.img, away)),
    /** Share of hair pixels within 12 px of the face that moved toward the target. */
    faceEdgeCoverage: changed.length / near.length,
    /** Mean ΔE on the face's skin. */
    skinChange,
    /** Mean change at the roots / in the lengths (the roots are held back a little). */
    rootChangeRatio: change(roots) / change(lengths),
    /** L* at the roots minus L* of the lengths, after. */
    rootMinusLengthsL: meanLab(after, roots)[0] - meanLab(after, lengths)[0],
  };
}

/**
 * The ombre head's lengths after a recolour to `target`: the share of their
 * pixels in the shade's hue, and the skin off the face (neck,
 * chest, shoulders): its mean ΔE and the share changed by more than ΔE 3.
 */
export function lengthsFigures(h: SyntheticHead, after: Canvas, target: Lab) {
  const lengths: number[] = [], body: number[] = [];
  for (let p = 0; p < h.ombre.length; p++) {
    if (h.ombre[p]) lengths.push(p);
    if (h.body[p] && p % 3 === 0) body.push(p);
  }
  // Lighter lengths keep their lightness: dyed, they take the shade's hue (20 degrees off at most: undyed, the
  // lengths' golden brown lies 30 off auburn's).
  const dyed = lengths.filter((p) => {
    const a = labOf(after, p);
    return hueError(a, target) < 20 && deltaE(a, labOf(h.img, p)) > 5;
  });
  const de = body.map((p) => deltaE(labOf(h.img, p), labOf(after, p)));
  return {
    /** Share of the lighter lengths dyed. */
    lengthsDyed: dyed.length / Math.max(1, lengths.length),
    /** Mean ΔE on the neck, chest and shoulders. */
    bodyChange: de.reduce((a, v) => a + v, 0) / Math.max(1, de.length),
    /** Share of the neck, chest and shoulders changed by more than ΔE 3. */
    bodyChanged: de.filter((v) => v > 3).length / Math.max(1, de.length),
  };
}

/**
 * The skin just under the hairline over the forehead, on a portrait rendered
 * plain and with a hair colour. Per column within 0.2 face widths of the
 * mesh's top, the hairline is where the plain photo's L*, going up from the
 * forehead, first falls halfway to the hair's (the mean of the 0.06 face
 * heights above); the band is the 0.03 face heights below it (the skin side
 * of the soft hairline, half hair at most), the forehead the 0.08-0.14 below
 * it. Returns, after the recolour, the band's ΔE from the forehead and its
 * mean distance from the blend of the dyed hair just above and the forehead
 * (a soft edge of dyed hair over skin lies on that blend; one left in the
 * hair's old colour lies off it, grey-green beside auburn), and the same
 * distance on the plain photo (its own hair and skin).
 */
export function hairlineBand(plain: Canvas, out: Canvas, g: FaceGeometry) {
  const W = plain.width, top = g.pts[10], fh = g.fh;
  const L = (img: Canvas, x: number, y: number) => labOf(img, y * W + x)[0];
  const band: number[] = [], skin: number[] = [], hair: number[] = [];
  for (let x = Math.round(top[0] - 0.2 * g.fw); x < top[0] + 0.2 * g.fw; x++) {
    const start = Math.round(top[1] + 0.05 * fh), skinL = L(plain, x, start);
    let y = start;
    while (y > top[1] - 0.5 * fh && L(plain, x, y) > skinL - 15) y--;
    // Now in the transition: its hair side is 0.06 fh above.
    let hairL = 0;
    const n = Math.round(0.06 * fh);
    for (let k = 1; k <= n; k++) hairL += L(plain, x, y - Math.round(0.02 * fh) - k) / n;
    if (skinL - hairL < 20) continue;
    // The halfway row, going up from the forehead again.
    y = start;
    while (y > top[1] - 0.5 * fh && L(plain, x, y) >= (skinL + hairL) / 2) y--;
    y++;
    for (let k = 0; k < 0.03 * fh; k++) band.push((y + k) * W + x);
    for (let k = Math.round(0.08 * fh); k < 0.14 * fh; k++) skin.push((y + k) * W + x);
    for (let k = Math.round(0.02 * fh); k < 0.05 * fh; k++) hair.push((y - k) * W + x);
  }
  const offBlend = (img: Canvas) => {
    const S = meanLab(img, skin), Hm = meanLab(img, hair);
    const d = [Hm[0] - S[0], Hm[1] - S[1], Hm[2] - S[2]], dd = d[0] ** 2 + d[1] ** 2 + d[2] ** 2;
    let sum = 0;
    for (const p of band) {
      const c = labOf(img, p), e = [c[0] - S[0], c[1] - S[1], c[2] - S[2]];
      const t = Math.max(0, Math.min(1, (e[0] * d[0] + e[1] * d[1] + e[2] * d[2]) / Math.max(1e-6, dd)));
      sum += Math.hypot(e[0] - t * d[0], e[1] - t * d[1], e[2] - t * d[2]);
    }
    return sum / Math.max(1, band.length);
  };
  return {
    /** Pixels in the band. */
    pixels: band.length,
    /** ΔE between the band and the forehead below it, after. */
    bandDeltaE: deltaE(meanLab(out, band), meanLab(out, skin)),
    /** The same on the plain photo. */
    bandDeltaEBefore: deltaE(meanLab(plain, band), meanLab(plain, skin)),
    /** Mean distance of the band's pixels from the dyed hair-to-forehead blend, after. */
    offBlend: offBlend(out),
    /** The same on the plain photo. */
    offBlendBefore: offBlend(plain),
  };
}

/**
 * Lengths and body skin on a portrait rendered plain and with a hair colour:
 * the share of the pixels beside the neck (0.35-0.75 face widths either side
 * of the face's centre, from the chin to 0.45 face heights below it: lengths,
 * with skin and backdrop between them) changed by more than ΔE 8, and the
 * share of the neck (0.15 face widths either side of the chin, 0.05-0.3 face
 * heights below it) and of the chest below it (0.3 face widths either side,
 * 0.45-0.8 face heights below the chin) changed by more than ΔE 3.
 */
export function lengthsBesideNeck(plain: Canvas, out: Canvas, g: FaceGeometry) {
  const W = plain.width, H = plain.height, cx = g.center[0], chin = g.pts[152];
  const box = (x0: number, x1: number, y0: number, y1: number) => {
    const px: number[] = [];
    for (let y = Math.max(0, Math.round(y0)); y < Math.min(H, y1); y++) {
      for (let x = Math.max(0, Math.round(x0)); x < Math.min(W, x1); x++) px.push(y * W + x);
    }
    return px;
  };
  const moved = (px: number[], by: number) =>
    px.filter((p) => deltaE(labOf(plain, p), labOf(out, p)) > by).length / Math.max(1, px.length);
  const y0 = chin[1], y1 = chin[1] + 0.45 * g.fh;
  return {
    left: moved(box(cx - 0.75 * g.fw, cx - 0.35 * g.fw, y0, y1), 8),
    right: moved(box(cx + 0.35 * g.fw, cx + 0.75 * g.fw, y0, y1), 8),
    neck: moved(
      box(chin[0] - 0.15 * g.fw, chin[0] + 0.15 * g.fw, chin[1] + 0.05 * g.fh, chin[1] + 0.3 * g.fh),
      3,
    ),
    chest: moved(box(cx - 0.3 * g.fw, cx + 0.3 * g.fw, chin[1] + 0.45 * g.fh, chin[1] + 0.8 * g.fh), 3),
  };
}
