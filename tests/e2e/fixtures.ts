/**
 * Browser-test images, made at test time and written to a temp dir (never
 * committed): a one-person crop of a face-api demo photo (MIT, read from
 * node_modules) and a rendered landscape with no face.
 */
import sharp from "sharp";
import { fileURLToPath } from "node:url";

const DEMO = new URL(
  "../../node_modules/@vladmandic/face-api/demo/",
  import.meta.url,
);

/** A frontal face in sample6.jpg: x, y, size (from a detection run). */
const FACE = { sample: 6, x: 1081, y: 280, size: 368 };

export async function writePortrait(dir: string): Promise<string> {
  const file = fileURLToPath(new URL(`sample${FACE.sample}.jpg`, DEMO));
  const meta = await sharp(file).metadata();
  const h = Math.min(meta.height!, Math.round(FACE.size * 2.2));
  const w = Math.min(meta.width!, Math.round(h * 0.75));
  const cx = FACE.x + FACE.size / 2, cy = FACE.y + FACE.size / 2;
  const left = Math.round(Math.min(meta.width! - w, Math.max(0, cx - w / 2)));
  const top = Math.round(
    Math.min(meta.height! - h, Math.max(0, cy - h * 0.42)),
  );
  const out = `${dir}/portrait.jpg`;
  await sharp(file).extract({ left, top, width: w, height: h })
    .jpeg({ quality: 92 }).toFile(out);
  return out;
}

export async function writeLandscape(dir: string): Promise<string> {
  const w = 900, h = 600;
  const data = new Uint8Array(w * h * 3);
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const hill = h * 0.55 + Math.sin(x / 110) * 36 + Math.sin(x / 31) * 10;
      const i = (y * w + x) * 3, n = (rnd() - 0.5) * 24;
      if (y < hill) {
        const t = y / hill;
        data[i] = 95 + 100 * t + n;
        data[i + 1] = 145 + 80 * t + n;
        data[i + 2] = 230 - 20 * t + n;
      } else {
        data[i] = 55 + n;
        data[i + 1] = 120 + n;
        data[i + 2] = 60 + n;
      }
    }
  }
  const out = `${dir}/landscape.jpg`;
  await sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 90 }).toFile(out);
  return out;
}
