/**
 * Colour maths for the local model: sRGB <-> linear light lookup tables,
 * CIE Lab (D65) conversions and the CIE76 colour difference (ΔE).
 */

/** sRGB byte -> linear light 0..1. */
export const SRGB_TO_LINEAR = new Float32Array(256);
for (let i = 0; i < 256; i++) {
  const c = i / 255;
  SRGB_TO_LINEAR[i] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

export const LIN_STEPS = 4096;
export const LINEAR_TO_SRGB_LUT = new Uint8Array(LIN_STEPS + 1);
for (let i = 0; i <= LIN_STEPS; i++) {
  const c = i / LIN_STEPS;
  const s = c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055;
  LINEAR_TO_SRGB_LUT[i] = Math.round(Math.min(1, Math.max(0, s)) * 255);
}

/** Linear light (any float, clamped) -> sRGB byte. */
export function linearToSrgb(v: number): number {
  if (!(v > 0)) return 0;
  if (v >= 1) return 255;
  return LINEAR_TO_SRGB_LUT[(v * LIN_STEPS + 0.5) | 0];
}

/** Linear light -> sRGB 0..255, unrounded (for tables interpolated before rounding). */
export function linearToSrgbFloat(v: number): number {
  if (!(v > 0)) return 0;
  if (v >= 1) return 255;
  return 255 * (v <= 0.0031308 ? v * 12.92 : 1.055 * v ** (1 / 2.4) - 0.055);
}

export type Rgb = [number, number, number];
export type Lab = [number, number, number];

/** "#B22234" -> [178, 34, 52]. */
export function hexToRgb(hex: string): Rgb {
  const h = hex.replace("#", "");
  return [
    parseInt(h.slice(0, 2), 16),
    parseInt(h.slice(2, 4), 16),
    parseInt(h.slice(4, 6), 16),
  ];
}

/** sRGB bytes -> linear light triple. */
export function rgbToLinear(rgb: Rgb): Rgb {
  return [
    SRGB_TO_LINEAR[rgb[0]],
    SRGB_TO_LINEAR[rgb[1]],
    SRGB_TO_LINEAR[rgb[2]],
  ];
}

/** "#B22234" -> linear-light triple. */
export function hexToLinear(hex: string): Rgb {
  return rgbToLinear(hexToRgb(hex));
}

/** Relative luminance of a linear-light triple. */
export function luminance(r: number, g: number, b: number): number {
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** CIE L* (0-100) of a relative luminance (the L* of linearToLab, from Y alone). */
export function lightnessOf(Y: number): number {
  return Y > 0.008856 ? 116 * Math.cbrt(Y) - 16 : 903.3 * Y;
}

/** The relative luminance of CIE L* `L` (lightnessOf's inverse). */
export function luminanceOfL(L: number): number {
  return L > 8 ? ((L + 16) / 116) ** 3 : L / 903.3;
}

const XN = 0.95047, YN = 1, ZN = 1.08883;
const labF = (t: number) => t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116;
const labFInv = (t: number) => {
  const t3 = t * t * t;
  return t3 > 0.008856 ? t3 : (t - 16 / 116) / 7.787;
};

/** Linear-light RGB -> Lab. */
export function linearToLab(r: number, g: number, b: number): Lab {
  const x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / XN;
  const y = (0.2126729 * r + 0.7151522 * g + 0.072175 * b) / YN;
  const z = (0.0193339 * r + 0.119192 * g + 0.9503041 * b) / ZN;
  const fx = labF(x), fy = labF(y), fz = labF(z);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** Lab -> linear-light RGB (unclamped). */
export function labToLinear(L: number, a: number, b: number): Rgb {
  const fy = (L + 16) / 116;
  const x = labFInv(fy + a / 500) * XN;
  const y = labFInv(fy) * YN;
  const z = labFInv(fy - b / 200) * ZN;
  return [
    3.2404542 * x - 1.5371385 * y - 0.4985314 * z,
    -0.969266 * x + 1.8760108 * y + 0.041556 * z,
    0.0556434 * x - 0.2040259 * y + 1.0572252 * z,
  ];
}

/** linearToLab without allocating (the same formula), into `out`. */
export function linearToLabInto(out: Float64Array, r: number, g: number, b: number): void {
  const fx = labF((0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / XN);
  const fy = labF((0.2126729 * r + 0.7151522 * g + 0.072175 * b) / YN);
  const fz = labF((0.0193339 * r + 0.119192 * g + 0.9503041 * b) / ZN);
  out[0] = 116 * fy - 16;
  out[1] = 500 * (fx - fy);
  out[2] = 200 * (fy - fz);
}

/** sRGB bytes -> Lab. */
export function srgbToLab(r: number, g: number, b: number): Lab {
  return linearToLab(SRGB_TO_LINEAR[r], SRGB_TO_LINEAR[g], SRGB_TO_LINEAR[b]);
}

export function hexToLab(hex: string): Lab {
  const [r, g, b] = hexToRgb(hex);
  return srgbToLab(r, g, b);
}

/** The hue angle of a Lab colour's a*, b* in degrees, -180 to 180 (hueGap takes it in radians). */
export function hueDegrees(a: number, b: number): number {
  return Math.atan2(b, a) * 180 / Math.PI;
}

/** A difference of two angles in degrees, wrapped to [-180, 180). */
export function wrapDegrees(d: number): number {
  return ((d + 540) % 360) - 180;
}

/** The gap between two hues given in radians (as atan2(b*, a*) gives them), in degrees: 0 to 180. */
export function hueGap(h1: number, h2: number): number {
  const d = h1 - h2;
  return Math.abs(Math.atan2(Math.sin(d), Math.cos(d))) * 180 / Math.PI;
}

/** CIE76 colour difference. */
export function deltaE(a: Lab, b: Lab): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}
