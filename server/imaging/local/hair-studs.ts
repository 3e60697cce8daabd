/**
 * Studs and pearls in the hair by the ear lobes: kept out of the dye.
 *
 * A grey pearl stud among dark lengths (sample2@1370: L* 39, a* -1, b* -1 over hair of L* 15-25, lit blue
 * on its other side) is the colour of hair to every colour test, so Auburn dyed it a peach-red bead. Its
 * shape tells it: a compact round blob, lighter than the hair about it and nearly grey, where a lobe hangs
 * beside the jaw. Light strands there are long and thin (sheen along straight lengths) or open onto more
 * light hair; a stud is enclosed by the hair's darker colour.
 */
import type { Canvas } from "./blend.ts";
import { srgbToLab } from "./color.ts";
import type { Point } from "./masks.ts";

/** The zone searched about each lobe, in face widths. */
const LOBE_REACH = 0.16;
/** A stud is at least this many L* lighter than the median of the dyed hair in its zone. */
const STUD_ABOVE = 12;
/** ...and holds at most this much chroma (a pearl, silver, a diamond; not a lit brown lock). */
const STUD_CHROMA = 12;
/** Its size, as the side of a square of its area, in face widths. */
const STUD_MIN = 0.015, STUD_MAX = 0.1;
/** Its area over its bounding box's (a disc 0.79), and its box's longer side over its shorter. */
const STUD_FILL = 0.6, STUD_ASPECT = 1.8;
/** Its lightest pixel (the light's reflection on a polished surface) this many L* over the hair's median. */
const STUD_SHINE = 35;

/** A box searched for a stud, in canvas pixels. */
export interface LobeZone {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Where ear lobes hang, one box per side: beside the face's outline (landmarks 234, 93, 132 on one side,
 * 454, 323, 361 on the other, from the cheek at eye level to the jaw at mouth level), reaching LOBE_REACH
 * face widths out from it and up and down. A head bowed or raised moves the lobe along that outline
 * (sample2@1370 looks down: her stud is level with her cheekbone).
 */
export function earLobes(pts: Point[], fw: number): LobeZone[] {
  const centre = (pts[234][0] + pts[454][0]) / 2, r = LOBE_REACH * fw;
  return [[234, 93, 132], [454, 323, 361]].map((side) => {
    const xs = side.map((i) => pts[i][0]), ys = side.map((i) => pts[i][1]);
    const x = xs.reduce((a, b) => a + b) / xs.length, out = Math.sign(x - centre);
    return {
      x0: Math.round(out > 0 ? Math.min(...xs) : Math.min(...xs) - r),
      x1: Math.round(out > 0 ? Math.max(...xs) + r : Math.max(...xs)),
      y0: Math.round(Math.min(...ys) - r),
      y1: Math.round(Math.max(...ys) + r),
    };
  });
}

/**
 * Sets the dye's strength to 0 on every stud (see the module's comment) in `plane` (bw x bh from canvas
 * pixel x0, y0), and 2 pixels about it; returns how many pixels it cleared.
 */
export function clearStuds(
  img: Canvas,
  plane: Float32Array,
  x0: number,
  y0: number,
  bw: number,
  bh: number,
  lobes: LobeZone[],
  fw: number,
): number {
  const d = img.data, W = img.width;
  let cleared = 0;
  for (const zone of lobes) {
    const zx0 = Math.max(0, zone.x0 - x0), zx1 = Math.min(bw - 1, zone.x1 - x0);
    const zy0 = Math.max(0, zone.y0 - y0), zy1 = Math.min(bh - 1, zone.y1 - y0);
    if (zx1 <= zx0 || zy1 <= zy0) continue;
    const zw = zx1 - zx0 + 1, zh = zy1 - zy0 + 1;
    const L = new Float32Array(zw * zh), C = new Float32Array(zw * zh);
    // The dyed hair's L* by quarter units: its median without sorting (this runs on every plan).
    const hist = new Uint32Array(401);
    let dyed = 0;
    for (let y = 0; y < zh; y++) {
      for (let x = 0; x < zw; x++) {
        const px = zx0 + x + x0, py = zy0 + y + y0, v = plane[(zy0 + y) * bw + zx0 + x];
        // Only the dye's pixels are judged (and counted for the hair's median).
        if (v <= 0.3 || px >= W || py >= img.height) continue;
        const o = (py * W + px) * 3, lab = srgbToLab(d[o], d[o + 1], d[o + 2]);
        L[y * zw + x] = lab[0], C[y * zw + x] = Math.hypot(lab[1], lab[2]);
        if (v > 0.5) hist[Math.max(0, Math.min(400, Math.round(lab[0] * 4)))]++, dyed++;
      }
    }
    if (dyed < (0.05 * fw) ** 2) continue;
    let median = 0;
    for (let i = 0, count = 0; i <= 400; i++) {
      if ((count += hist[i]) * 2 >= dyed) {
        median = i / 4;
        break;
      }
    }
    const above = median + STUD_ABOVE;
    // Candidates: dyed, light and grey (L stays 0 where the dye is not). Their 4-connected blobs, each judged
    // whole.
    const cand = new Uint8Array(zw * zh);
    for (let k = 0; k < zw * zh; k++) cand[k] = L[k] > above && C[k] < STUD_CHROMA ? 1 : 0;
    const seen = new Uint8Array(zw * zh), stack: number[] = [];
    for (let s = 0; s < zw * zh; s++) {
      if (!cand[s] || seen[s]) continue;
      const blob: number[] = [];
      let bx0 = zw, bx1 = -1, by0 = zh, by1 = -1, edge = false;
      seen[s] = 1, stack.push(s);
      while (stack.length) {
        const k = stack.pop()!, x = k % zw, y = (k - x) / zw;
        blob.push(k);
        bx0 = Math.min(bx0, x), bx1 = Math.max(bx1, x), by0 = Math.min(by0, y), by1 = Math.max(by1, y);
        if (x === 0 || y === 0 || x === zw - 1 || y === zh - 1) edge = true;
        for (
          const n of [
            x > 0 ? k - 1 : -1,
            x < zw - 1 ? k + 1 : -1,
            y > 0 ? k - zw : -1,
            y < zh - 1 ? k + zw : -1,
          ]
        ) {
          if (n >= 0 && cand[n] && !seen[n]) seen[n] = 1, stack.push(n);
        }
      }
      const side = Math.sqrt(blob.length) / fw, bw2 = bx1 - bx0 + 1, bh2 = by1 - by0 + 1;
      const fill = blob.length / (bw2 * bh2), aspect = Math.max(bw2, bh2) / Math.min(bw2, bh2);
      let peak = 0;
      for (const k of blob) peak = Math.max(peak, L[k]);
      if (
        edge || side < STUD_MIN || side > STUD_MAX || fill < STUD_FILL || aspect > STUD_ASPECT ||
        peak < median + STUD_SHINE
      ) continue;
      for (const k of blob) {
        const x = k % zw, y = (k - x) / zw;
        for (let dy = -2; dy <= 2; dy++) {
          for (let dx = -2; dx <= 2; dx++) {
            const px = zx0 + x + dx, py = zy0 + y + dy;
            if (px < 0 || py < 0 || px >= bw || py >= bh) continue;
            const q = py * bw + px;
            if (plane[q] > 0) plane[q] = 0, cleared++;
          }
        }
      }
    }
  }
  return cleared;
}
