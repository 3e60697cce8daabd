/**
 * A photo's pixels and its faces: decoding and face detection, the first two
 * steps of a render, kept apart from the renderer so that the face count (the
 * hosted models' output check) loads only these.
 */
import sharp from "sharp";
import type { Canvas } from "./blend.ts";
import type { DetectedFace, FaceModels } from "./face-engine.ts";
import type { Point } from "./masks.ts";

/**
 * Decodes the photo once, at its own size (photos over 2048 px are reduced):
 * the framing resizes it to the output in a single step, and detection runs
 * on it directly (or on an enlarged copy, see detectFaces).
 */
export async function decodePhoto(photo: Uint8Array): Promise<Canvas> {
  let p = sharp(photo).rotate().toColourspace("srgb").removeAlpha();
  const meta = await sharp(photo).metadata();
  const long = Math.max(meta.width ?? 0, meta.height ?? 0);
  if (long > 2048) p = p.resize(2048, 2048, { fit: "inside", kernel: "lanczos3" });
  const { data, info } = await p.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`unexpected channel count ${info.channels}`);
  return {
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
    width: info.width,
    height: info.height,
  };
}

/** Below this long side, detection runs on a copy enlarged to DETECT_LONG (small faces). */
const DETECT_MIN = 640;
export const DETECT_LONG = 1024;

/**
 * Faces in photo coordinates. The mesh does not get more precise on a larger
 * copy (its resolution is the model's), but on small photos (faces of ~150
 * px) Human's integer coordinates do: those are detected on an enlarged copy.
 * A tilted head is measured again upright (uprightMesh), unless `upright` is
 * false (a face count needs no eyes).
 */
export async function detectFaces(
  engine: FaceModels,
  photo: Canvas,
  { upright = true }: { upright?: boolean } = {},
): Promise<DetectedFace[]> {
  const faces = await detectAsIs(engine, photo);
  if (!upright) return faces;
  const widest = faces.reduce((m, f) => Math.max(m, f.box[2]), 0);
  for (const face of faces) {
    // A face under half the widest's width can be neither the portrait's face nor its rival
    // (chooseFace), and no makeup is painted on it.
    if (face.box[2] < widest / 2 || face.score < 0.5) continue;
    let tilt = headTilt(face.mesh);
    if (Math.abs(tilt) < TILT_MIN) continue;
    // A mesh on a tilted head reads its tilt short (sample1@1438: 25° of ~42°), so the face turned by
    // it is still tilted; it is turned again by the better reading until the reading settles.
    let around = face.box;
    for (let pass = 0; pass < UPRIGHT_PASSES; pass++) {
      const found = await measureUpright(engine, photo, around, tilt);
      if (!found) break;
      face.uprightMesh = found.mesh;
      around = found.box;
      const next = headTilt(found.mesh);
      if (Math.abs(next - tilt) < TILT_SETTLED) break;
      tilt = next;
    }
  }
  return faces;
}

async function detectAsIs(engine: FaceModels, photo: Canvas): Promise<DetectedFace[]> {
  const long = Math.max(photo.width, photo.height);
  if (long >= DETECT_MIN) return await engine.detect(photo);
  const k = DETECT_LONG / long;
  const { data, info } = await sharp(photo.data, {
    raw: { width: photo.width, height: photo.height, channels: 3 },
  })
    .resize(Math.round(photo.width * k), Math.round(photo.height * k), { kernel: "cubic" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const faces = await engine.detect({
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
    ...info,
  });
  const sx = photo.width / info.width, sy = photo.height / info.height;
  return faces.map((f) => ({
    ...f,
    box: [f.box[0] * sx, f.box[1] * sy, f.box[2] * sx, f.box[3] * sy],
    mesh: f.mesh.map((p): [number, number] => [p[0] * sx, p[1] * sy]),
  }));
}

/**
 * Above this tilt (radians, ~15°) a face is measured again on an upright copy. Human's mesh model
 * expects an upright face; its own rotation correction turns the whole photo by the detector's
 * rougher angle (sample2@805, upright, was turned and lost an eye). On heads tilted 16-25° as first
 * read (sample1@1438, sample4@1216) the mesh put an eye on the side of the nose, ~0.1-0.2 face widths
 * under the real one; measured upright, both eyes land on the eyes. The upright mesh places all the
 * makeup except the lips: the matte, hair and lip models were tuned on the mesh as found, and measured on
 * the upright one they changed in ways not yet worked through (see decision 021).
 */
const TILT_MIN = 0.26;
/** Upright measures at most per face, and the change in tilt (radians, ~3°) that ends them. */
const UPRIGHT_PASSES = 3;
const TILT_SETTLED = 0.05;
/** Side of the upright copy: the face box fills about half of it, as the detector likes. */
export const UPRIGHT_SIDE = 512;

/**
 * The head's roll in image coordinates (y down, positive = turned clockwise as seen), from the eye
 * line and the forehead-to-chin line together (either alone is off where the mesh is off).
 */
export function headTilt(mesh: Point[]): number {
  const [rx, ry] = mesh[33], [lx, ly] = mesh[263];
  const [tx, ty] = mesh[10], [cx, cy] = mesh[152];
  const eye = Math.hypot(lx - rx, ly - ry) || 1, axis = Math.hypot(cx - tx, cy - ty) || 1;
  // The eye line points along (cos a, sin a); the face's "down" along (-sin a, cos a).
  const x = (lx - rx) / eye + (cy - ty) / axis;
  const y = (ly - ry) / eye - (cx - tx) / axis;
  return Math.atan2(y, x);
}

/**
 * The face measured on a copy of its surroundings turned by `a` (bilinear, UPRIGHT_SIDE square,
 * mid-grey outside the photo), its points turned back into photo pixels; undefined when the
 * upright copy finds no face there.
 */
async function measureUpright(
  engine: FaceModels,
  photo: Canvas,
  box: DetectedFace["box"],
  a: number,
): Promise<{ mesh: Point[]; box: DetectedFace["box"] } | undefined> {
  const [bx, by, bw, bh] = box;
  const cx = bx + bw / 2, cy = by + bh / 2;
  const scale = (2 * Math.max(bw, bh)) / UPRIGHT_SIDE;
  const cos = Math.cos(a) * scale, sin = Math.sin(a) * scale;
  const half = UPRIGHT_SIDE / 2;
  const toPhoto = (u: number, v: number): Point => {
    const dx = u - half, dy = v - half;
    return [cx + cos * dx - sin * dy, cy + sin * dx + cos * dy];
  };
  const side = UPRIGHT_SIDE;
  const out = new Uint8Array(side * side * 3);
  const { data, width, height } = photo;
  for (let v = 0; v < side; v++) {
    for (let u = 0; u < side; u++) {
      const [x, y] = toPhoto(u + 0.5, v + 0.5);
      const o = (v * side + u) * 3;
      const fx = x - 0.5, fy = y - 0.5;
      const x0 = Math.floor(fx), y0 = Math.floor(fy);
      if (x0 < 0 || y0 < 0 || x0 + 1 >= width || y0 + 1 >= height) {
        out[o] = out[o + 1] = out[o + 2] = 128;
        continue;
      }
      const wx = fx - x0, wy = fy - y0;
      const i00 = (y0 * width + x0) * 3, i01 = i00 + 3, i10 = i00 + width * 3, i11 = i10 + 3;
      for (let c = 0; c < 3; c++) {
        const top = data[i00 + c] + (data[i01 + c] - data[i00 + c]) * wx;
        const bottom = data[i10 + c] + (data[i11 + c] - data[i10 + c]) * wx;
        out[o + c] = Math.round(top + (bottom - top) * wy);
      }
    }
  }
  const found = await engine.detect({ data: out, width: side, height: side });
  let best: DetectedFace | undefined, bestDist = 0.25 * side;
  for (const f of found) {
    const d = Math.hypot(f.box[0] + f.box[2] / 2 - half, f.box[1] + f.box[3] / 2 - half);
    if (d < bestDist) [best, bestDist] = [f, d];
  }
  if (!best) return undefined;
  // The box keeps its upright size, around its centre: where the next pass looks.
  const [ux, uy, uw, uh] = best.box;
  const [mx, my] = toPhoto(ux + uw / 2, uy + uh / 2);
  const w = uw * scale, h = uh * scale;
  return { mesh: best.mesh.map(([u, v]) => toPhoto(u, v)), box: [mx - w / 2, my - h / 2, w, h] };
}
