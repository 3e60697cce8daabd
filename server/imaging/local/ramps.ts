/** The small numeric shapes the imaging stages share: a value clamped to 0..1, and ramps between two values. */

/** `v` clamped to 0..1. */
export function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

/** 0 at `from`, 1 at `to` and beyond, linear between (falling when `to` lies below `from`). */
export function ramp(v: number, from: number, to: number): number {
  return clamp01((v - from) / (to - from));
}

/** 0 at `a` or before, 1 at `b` or after, eased between (Hermite smoothstep). */
export function smoothstep(a: number, b: number, x: number): number {
  const u = clamp01((x - a) / (b - a));
  return u * u * (3 - 2 * u);
}
