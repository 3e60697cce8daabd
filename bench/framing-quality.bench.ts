/**
 * Framing and resolution benchmark (`deno task bench`, or `deno run -A bench/framing-quality.bench.ts`).
 * Prints, with the load average:
 * - framing per portrait and camera: how far the face is enlarged, where the
 *   photo's bottom edge lands (0 = on the frame's bottom edge), how far a
 *   photo side the person reaches lies inside the frame (0 = none), how many
 *   rows above the photo the frame extends its background (0 = none) and the note;
 * - the same with no camera for a 3:4 crop of every test face: the enlargement,
 *   the one that would fill the frame, and the rows left above the photo;
 * - the face's measured detail scale (faceDetailScale) on sharp portraits and
 *   on copies softened 1.5x/2x/3x, and the enlargement limit it gives;
 * - detail restoration (server/imaging/local/upscale.ts) against the plain
 *   resize: overshoot and steepest step at synthetic edges, and the gradient
 *   energy of the test portraits reduced and enlarged again, against the
 *   originals (1.00 = as sharp as the real resolution);
 * - the cost of the restoration at the 1080x1920 frame (median of 10).
 * Portraits: faces cropped at run time from @vladmandic/face-api's demo photos
 * (MIT, test-only data in node_modules).
 */
import sharp from "sharp";
import { FaceEngine } from "../server/imaging/local/face-engine.ts";
import { faceGeometry } from "../server/imaging/local/face-geometry.ts";
import {
  coversFrame,
  faceDetailScale,
  framingNote,
  MAX_FACE_UPSCALE,
} from "../server/imaging/local/framing.ts";
import { CAMERA_RECIPES } from "../server/imaging/local/recipes.ts";
import { chooseFace, decodePhoto, detectFaces, framingFor } from "../server/imaging/local/render.ts";
import { restoreDetail } from "../server/imaging/local/upscale.ts";
import { cropFace, DARK_HAIR, FRONTAL_FACES, resized, samplePath } from "../tests/imaging/fixtures.ts";
import { percentile } from "./stats.ts";

const W = 1080, H = 1920;
const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
console.log(`load average at start: ${load()}`);

// 1. Framing of real portraits.
const engine = await FaceEngine.load();
const portraits: [string, () => Promise<Uint8Array>][] = [
  ["sample3 crop 596x794", () => cropFace([3, 515, 295, 361])],
  ["sample6 crop reduced to 480x640", async () => resized(await cropFace(DARK_HAIR), 480, 640)],
  ["sample1 chest crop 368x491", () => cropFace([1, 773, 386, 327], 0.75, 1.5)],
  ["sample4 narrow crop 1:2", () => cropFace(FRONTAL_FACES[9], 0.5, 2.4)],
];
console.log(
  "\nframing (face enlargement; photo bottom - frame bottom in px, >= 0 is no floating edge;" +
    " a photo side the person reaches inside the frame by px, 0 is none; rows of extended background above the photo):",
);
for (const [name, make] of portraits) {
  const photo = await decodePhoto(await make());
  const face = chooseFace(await detectFaces(engine, photo), photo.width, photo.height);
  const g = faceGeometry(face.mesh);
  for (
    const [camera, recipe] of [["as photographed", undefined], ...Object.entries(CAMERA_RECIPES)] as const
  ) {
    const f = framingFor(photo, face, W, H, recipe?.faceWidth);
    const gap = f.offsetY + Math.round(photo.height * f.scale) - H;
    // A side within 2 face widths of the face: the person reaches it (see planFraming).
    const reach = 2 * g.fw, right = f.offsetX + Math.round(photo.width * f.scale);
    const side = Math.max(
      g.eyeCenter[0] < reach ? f.offsetX : 0,
      photo.width - g.eyeCenter[0] < reach ? W - right : 0,
    );
    const note = framingNote(f, recipe ? camera : undefined, (recipe?.backgroundBlur ?? 0) > 0) ?? "";
    console.log(
      `  ${name.padEnd(32)} ${camera.padEnd(18)} face ${f.scale.toFixed(2)}x  bottom ${
        String(gap).padStart(5)
      }  side ${String(Math.max(0, side)).padStart(4)}  top ${String(f.photoRect.y).padStart(4)}  ${note}`,
    );
  }
}

// 1a. A 3:4 crop of every test face, no camera: filled, or how much background is extended.
console.log("\n3:4 crops (cropFace defaults), no camera: enlargement, the cover's, rows above the photo:");
const filled: number[] = [];
for (const [i, spec] of FRONTAL_FACES.entries()) {
  const photo = await decodePhoto(await cropFace(spec));
  const face = chooseFace(await detectFaces(engine, photo), photo.width, photo.height);
  const f = framingFor(photo, face, W, H);
  const cover = Math.max(W / photo.width, H / photo.height);
  if (coversFrame(f)) filled.push(i);
  console.log(
    `  #${String(i).padEnd(2)} sample${spec[0]} ${photo.width}x${photo.height}  face ${f.scale.toFixed(2)}x` +
      `  cover ${cover.toFixed(2)}x  top ${f.photoRect.y}`,
  );
}
console.log(`  ${filled.length} of ${FRONTAL_FACES.length} fill the frame`);

// 1b. The face's detail scale on sharp portraits and softened copies.
console.log("\nface detail scale (1 = sharp) and the framing's own enlargement limit, by prior softening:");
for (const face of FRONTAL_FACES.filter((_, i) => i % 3 === 0)) {
  const cols: string[] = [];
  for (const soft of [1, 1.5, 2, 3]) {
    let bytes = await cropFace(face);
    if (soft > 1) {
      const m = await sharp(bytes).metadata();
      const small = await sharp(bytes).resize(Math.round(m.width! / soft)).toBuffer();
      bytes = new Uint8Array(await sharp(small).resize(m.width!, m.height!).jpeg({ quality: 92 }).toBuffer());
    }
    const photo = await decodePhoto(bytes);
    const g = faceGeometry(chooseFace(await detectFaces(engine, photo), photo.width, photo.height).mesh);
    const d = faceDetailScale(photo.data, photo.width, photo.height, g.eyeCenter, g.fw);
    cols.push(`${soft}x: ${d.toFixed(2)} (limit ${(MAX_FACE_UPSCALE / d).toFixed(2)}x)`);
  }
  console.log(`  sample${face[0]} face at ${face[1]},${face[2]}  ${cols.join("  ")}`);
}

// 2. Detail restoration at synthetic edges.
const N = 160;
async function enlarge(img: Uint8Array, w0: number, h0: number, w: number, h: number, restore: boolean) {
  const p = sharp(img, { raw: { width: w0, height: h0, channels: 3 } }).resize(w, h, { kernel: "lanczos3" });
  const data = new Uint8Array(await p.raw().toBuffer());
  if (restore) await restoreDetail({ data, width: w, height: h }, w / w0);
  return data;
}
console.log("\nsynthetic step edge (softened 0.8 px), green channel along the middle row: plain -> restored");
for (const [lo, hi] of [[60, 190], [20, 235], [110, 140]]) {
  const img = new Uint8Array(N * N * 3);
  for (let p = 0; p < N * N; p++) img.fill(p % N < N / 2 ? lo : hi, p * 3, p * 3 + 3);
  const soft = new Uint8Array(
    await sharp(img, { raw: { width: N, height: N, channels: 3 } }).blur(0.8).raw().toBuffer(),
  );
  const cols: string[] = [];
  for (const scale of [1.6, 2.4, 3.2]) {
    const w = Math.round(N * scale);
    const profile = (d: Uint8Array) => {
      let over = 0, steep = 0;
      for (let x = 0; x < w; x++) {
        const v = d[((w >> 1) * w + x) * 3 + 1];
        over = Math.max(over, v - hi, lo - v);
        if (x) steep = Math.max(steep, v - d[((w >> 1) * w + x - 1) * 3 + 1]);
      }
      return [over, steep];
    };
    const [a, b] = [
      profile(await enlarge(soft, N, N, w, w, false)),
      profile(await enlarge(soft, N, N, w, w, true)),
    ];
    cols.push(`${scale}x: overshoot ${a[0]}->${b[0]} levels, steepest step ${a[1]}->${b[1]}`);
  }
  console.log(`  ${lo}->${hi}  ${cols.join(" | ")}`);
}

// 3. Real faces reduced by the enlargement factor and enlarged back.
const lum = (d: Uint8Array) =>
  Float32Array.from(
    { length: d.length / 3 },
    (_, i) => 0.299 * d[3 * i] + 0.587 * d[3 * i + 1] + 0.114 * d[3 * i + 2],
  );
const gradient = (a: Float32Array, s: number) => {
  let g = 0;
  for (let y = 0; y < s - 1; y++) {
    for (let x = 0; x < s - 1; x++) {
      g += Math.abs(a[y * s + x + 1] - a[y * s + x]) + Math.abs(a[(y + 1) * s + x] - a[y * s + x]);
    }
  }
  return g;
};
console.log(
  "\ntest portraits (480 px around the face) reduced and enlarged again, gradient energy vs the original:",
);
const S = 480;
for (const scale of [1.6, 2.4, 3.2]) {
  const plain: string[] = [], restored: string[] = [];
  for (const [n, x, y, s] of FRONTAL_FACES.filter((_, i) => i % 4 === 0)) {
    const left = Math.round(x + s / 2 - S / 2), top = Math.max(0, Math.round(y + s / 2 - S / 2));
    const orig = new Uint8Array(
      await sharp(samplePath(n)).extract({ left, top, width: S, height: S }).removeAlpha().raw().toBuffer(),
    );
    const sm = Math.round(S / scale);
    const small = new Uint8Array(
      await sharp(orig, { raw: { width: S, height: S, channels: 3 } }).resize(sm, sm, { kernel: "lanczos3" })
        .raw().toBuffer(),
    );
    const g0 = gradient(lum(orig), S);
    plain.push((gradient(lum(await enlarge(small, sm, sm, S, S, false)), S) / g0).toFixed(2));
    restored.push((gradient(lum(await enlarge(small, sm, sm, S, S, true)), S) / g0).toFixed(2));
  }
  console.log(`  ${scale}x: plain ${plain.join(" ")}  ->  restored ${restored.join(" ")}`);
}

// 4. Cost at the frame size: the enlargement to 1080x1920 with and without restoration.
const src = new Uint8Array(
  await sharp(await cropFace(DARK_HAIR)).resize(608, 1080).removeAlpha().raw().toBuffer(),
);
for (const restore of [false, true]) {
  const times: number[] = [];
  for (let i = 0; i < 12; i++) {
    const t = performance.now();
    await enlarge(src, 608, 1080, W, H, restore);
    if (i >= 2) times.push(performance.now() - t);
  }
  console.log(
    `\nenlarge 608x1080 -> 1080x1920 ${restore ? "with restoration" : "plain"}: median ${
      percentile(times, 50).toFixed(0)
    } ms (load ${load()})`,
  );
}
