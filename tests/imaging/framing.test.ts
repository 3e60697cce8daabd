/**
 * 9:16 framing of photos that do not cover the frame: the rendered output is
 * checked as a photo again (the face is found at the expected place and keeps
 * its colours), and every raw buffer the sharp pipelines produce has the
 * channel count the canvas code assumes (composite()/blur() may add or drop
 * channels silently; reading RGBA as RGB gives a grey, tripled smear).
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import type { Canvas } from "../../server/imaging/local/blend.ts";
import { deltaE } from "../../server/imaging/local/color.ts";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import {
  coverScaled,
  coversFrame,
  faceDetailScale,
  framingNote,
  planFraming,
  renderFramed,
} from "../../server/imaging/local/framing.ts";
import { FACE_OVAL } from "../../server/imaging/local/landmarks.ts";
import type { Point } from "../../server/imaging/local/masks.ts";
import { personMask } from "../../server/imaging/local/person-mask.ts";
import { chooseFace, decodePhoto, detectFaces, framingFor } from "../../server/imaging/local/render.ts";
import { blurredCopy, renderBackdrop } from "../../server/imaging/local/scene.ts";
import { CAMERA_RECIPES } from "../../server/imaging/local/recipes.ts";
import { detailSharpen } from "../../server/imaging/local/upscale.ts";
import { optionList } from "../../server/styling/catalog.ts";
import type { SelectedOptions } from "../../server/styling/option-keys.ts";
import type { SettingEntry } from "../../server/styling/catalog.ts";
import {
  cropFace,
  decode,
  type Decoded,
  FRONTAL_FACES,
  job,
  meanLab,
  polygonPixels,
  renderKept,
  reshape,
  resized,
} from "./fixtures.ts";

const engine = await FaceEngine.load();
const FACE: [number, number, number, number] = [3, 515, 295, 361];
const W = 1080, H = 1920;

async function faceOf(img: Decoded) {
  assert.equal(img.data.length, img.width * img.height * 3, "RGB buffer");
  const faces = await engine.detect(img);
  const face = chooseFace(faces, img.width, img.height);
  return faceGeometry(face.mesh);
}

function ovalPixels(img: Decoded, pts: Point[]): number[] {
  // The inner face (the oval eroded), the same skin, eyes and lips in both images.
  return polygonPixels(img, FACE_OVAL.map((i) => pts[i]), 3, 0.95);
}

/** The top `frac` of a photo (a crop that ends below the chin). */
async function topPart(photo: Uint8Array, frac: number): Promise<Uint8Array> {
  const m = await sharp(photo).metadata();
  const buf = await sharp(photo)
    .extract({ left: 0, top: 0, width: m.width!, height: Math.round(m.height! * frac) })
    .jpeg({ quality: 95 })
    .toBuffer();
  return new Uint8Array(buf);
}

/**
 * Photos that do not cover the 9:16 frame at the framing the rules choose:
 * the first two fill it once enlarged a little more (COVER_STRETCH), the
 * others keep part of the frame for their extended background.
 */
const inputs: [string, () => Promise<Uint8Array>, boolean][] = [
  ["700x900 crop", async () => resized(await cropFace(FACE, 700 / 900, 1.5), 700, 900), true],
  ["landscape 16:9", async () => reshape(await cropFace(FACE, 0.75, 1.6), 16 / 9), true],
  [
    "700x900 crop ending close above the head",
    async () => resized(await cropFace(FACE, 700 / 900, 1.3), 700, 900),
    false,
  ],
  ["square", async () => reshape(await cropFace(FACE, 0.75, 1.3), 1), false],
  ["photo cut below the chin", async () => topPart(await cropFace(FACE, 0.75), 0.6), false],
];

async function framingOf(photo: Uint8Array) {
  const decoded = await decodePhoto(photo);
  const g = faceGeometry(chooseFace(await detectFaces(engine, decoded), decoded.width, decoded.height).mesh);
  return planFraming({
    photoW: decoded.width,
    photoH: decoded.height,
    eye: g.eyeCenter,
    faceWidth: g.fw,
    outW: W,
    outH: H,
  });
}

for (const [name, make, fills] of inputs) {
  Deno.test(`framing a ${name}: the face is found again, centred, eyes ~40% down, colours kept`, async () => {
    const photo = await make();
    const f = await framingOf(photo);
    assert.equal(
      coversFrame(f),
      fills,
      fills ? "the photo fills the frame" : "the framing extends this photo",
    );
    assert.equal(framingNote(f) !== undefined, !fills, `note: ${framingNote(f)}`);
    const input = await decode(photo);
    const gi = await faceOf(input);
    const res = await renderKept(engine, job(photo));
    const out = await decode(res.image);
    assert.equal(`${out.width}x${out.height}`, `${W}x${H}`);
    const go = await faceOf(out);
    const ex = go.eyeCenter[0] / W, ey = go.eyeCenter[1] / H;
    assert.ok(Math.abs(ex - 0.5) < 0.06, `eyes x ${ex.toFixed(3)} not centred`);
    assert.ok(ey > 0.3 && ey < 0.48, `eyes y ${ey.toFixed(3)} not ~40% from the top`);
    // The whole face is in the frame.
    for (const i of FACE_OVAL) {
      const [x, y] = go.pts[i];
      assert.ok(
        x >= 0 && x < W && y >= 0 && y < H,
        `face point ${i} (${x.toFixed(0)}, ${y.toFixed(0)}) outside the frame; fw ${
          go.fw.toFixed(0)
        } eyes ${go.eyeCenter}`,
      );
    }
    const a = meanLab(input, ovalPixels(input, gi.pts)), b = meanLab(out, ovalPixels(out, go.pts));
    const de = deltaE(a, b);
    assert.ok(
      de < 6,
      `face colour ΔE ${de.toFixed(2)} (in ${a.map((v) => v.toFixed(1))}, out ${b.map((v) => v.toFixed(1))})`,
    );
  });
}

Deno.test("a portrait framed at the cover scale: the early resize gives the same canvas", async () => {
  // A tall crop at the photo's own resolution, enlarged ~1.5x to cover the frame.
  const photo = await cropFace(FACE, 0.5625, 3.6);
  const f = await framingOf(photo);
  assert.ok(coversFrame(f), "a tall portrait crop covers the frame");
  const decoded = await decodePhoto(photo);
  const direct = await renderFramed(decoded, f);
  const early = await renderFramed(decoded, f, coverScaled(decoded, W, H));
  assert.equal(early.data.length, direct.data.length);
  // The same pixels, but for the sharpening's reach at the frame border: the early copy's
  // mask (and the neighbours bounding its correction) see the photo beyond the frame.
  const sharpen = detailSharpen(f.scale)!;
  const border = Math.ceil(3 * sharpen.sigma) + sharpen.radius + 1;
  let maxDiff = 0, maxBorderDiff = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const inner = x >= border && x < W - border && y >= border && y < H - border;
      for (let c = 0; c < 3; c++) {
        const i = (y * W + x) * 3 + c, d = Math.abs(early.data[i] - direct.data[i]);
        if (inner) maxDiff = Math.max(maxDiff, d);
        else maxBorderDiff = Math.max(maxBorderDiff, d);
      }
    }
  }
  assert.ok(maxDiff <= 1, `max channel difference ${maxDiff}`);
  assert.ok(maxBorderDiff <= sharpen.cap, `max channel difference ${maxBorderDiff} at the frame border`);
  // A framing at another scale ignores it (the photo is resized for that scale).
  const other = { ...f, scale: f.scale * 1.1, offsetX: f.offsetX - 50, offsetY: f.offsetY - 80 };
  const resized = await renderFramed(decoded, other, coverScaled(decoded, W, H));
  assert.deepEqual(resized.data, (await renderFramed(decoded, other)).data);
  // A small 3:4 photo is framed at its cover scale too (2.4x, where the bottom rule's 2.0x would leave a
  // band above it): its early resize is made. A small landscape photo is hardly ever: none is made.
  const small = await decodePhoto(await cropFace(FACE));
  const pre = await coverScaled(small, W, H);
  assert.ok(pre && coversFrame(await framingOf(await cropFace(FACE))), "3:4 crop resized early");
  const wide = await decodePhoto(await reshape(await cropFace(FACE), 4 / 3));
  assert.ok((await coverScaled(wide, W, H)) === undefined, "landscape crop not resized early");
});

Deno.test("framing prefers filling the frame bottom with the photo", () => {
  // A 1400x1800 portrait, eyes 38% down, face 720 px wide: filling the bottom
  // with the eyes at 40% needs a larger face than the default target, which is allowed;
  // 3% more (the eyes at 38%) fills the frame rather than leaving 62 rows above the photo.
  const f = planFraming({ photoW: 1400, photoH: 1800, eye: [700, 684], faceWidth: 720, outW: W, outH: H });
  assert.ok(coversFrame(f), `photo at ${JSON.stringify(f.photoRect)}`);
  const ey = (684 * f.scale + f.offsetY) / H;
  assert.ok(Math.abs(ey - 0.38) < 0.01, `eyes at ${ey.toFixed(3)}`);
  assert.ok(720 * f.scale > 0.62 * W && 720 * f.scale <= 0.72 * W + 1, "face enlarged, not cropped");
  // The same photo at half the resolution: the eyes would sit lower (at most 47%) rather than the face
  // being enlarged past 1.6x for the eyes' sake, with a band above the photo; 1.17x more than that
  // (2.13x) fills the frame, so the photo is enlarged so far, its top on the frame's top.
  const small = planFraming({ photoW: 700, photoH: 900, eye: [350, 342], faceWidth: 360, outW: W, outH: H });
  assert.ok(coversFrame(small), `photo at ${JSON.stringify(small.photoRect)}`);
  const sy = (342 * small.scale + small.offsetY) / H;
  assert.ok(Math.abs(sy - 0.38) < 0.01, `eyes at ${sy.toFixed(3)}`);
  assert.ok(small.scale <= 1.2 * (0.53 * H) / (900 - 342), `enlarged ${small.scale.toFixed(2)}x`);
  // A crop ending at the chin cannot fill the bottom without cropping the face: an edge remains.
  const g = planFraming({ photoW: 700, photoH: 500, eye: [350, 300], faceWidth: 300, outW: W, outH: H });
  assert.ok(300 * g.scale <= 0.85 * W + 1, "face not cropped");
  assert.ok(g.photoRect.y + g.photoRect.h < H);
  const gy = (300 * g.scale + g.offsetY) / H;
  assert.ok(gy <= 0.47 + 1e-3, `eyes at ${gy.toFixed(3)}`);
});

Deno.test("a close framing the photo's resolution cannot support is widened, and the note says so", () => {
  // Face 300 px wide: Close-Up (face 62% of 1080 px) would enlarge it 2.2x.
  const close = { photoW: 800, photoH: 1400, eye: [400, 500] as Point, faceWidth: 300, outW: W, outH: H };
  const f = planFraming({ ...close, targetFaceWidth: 0.62 });
  assert.ok(f.scale <= 1.6 + 1e-3, `enlarged ${f.scale.toFixed(2)}x`);
  assert.equal(f.adjusted, "wider");
  assert.equal(
    framingNote(f, "Close-Up"),
    "Close-Up was framed wider: the photo's resolution is too low for a closer framing of the face",
  );
  // The 540x960 preview is framed like the result, at half the size.
  const preview = planFraming({ ...close, outW: W / 2, outH: H / 2, targetFaceWidth: 0.62 });
  assert.ok(Math.abs(preview.scale - f.scale / 2) < 0.01, `preview ${preview.scale}, result ${f.scale}`);
  assert.equal(preview.adjusted, "wider");
  // The same framing of a face the photo holds at 700 px is kept as chosen, without a note.
  const big = planFraming({
    ...close,
    photoW: 1800,
    photoH: 3000,
    eye: [900, 1100],
    faceWidth: 700,
    targetFaceWidth: 0.62,
  });
  assert.ok(Math.abs(big.scale * 700 - 0.62 * W) < 2, `face ${(big.scale * 700).toFixed(0)} px`);
  assert.equal(big.adjusted, undefined);
  assert.equal(framingNote(big, "Close-Up"), undefined);
  // Half Body on a head-and-shoulders crop: the photo's bottom edge would float; framed closer, with a note.
  const half = planFraming({
    photoW: 600,
    photoH: 800,
    eye: [300, 330],
    faceWidth: 260,
    outW: W,
    outH: H,
    targetFaceWidth: 0.26,
  });
  assert.equal(half.photoRect.y + half.photoRect.h, H, "photo reaches the frame bottom");
  assert.equal(
    framingNote(half, "Half Body", true),
    "Half Body was framed closer: the photo ends too close below the face for a wider framing",
  );
});

/** A copy of a photo softened as by an earlier `k`x enlargement (same size). */
async function softened(photo: Uint8Array, k: number): Promise<Uint8Array> {
  const m = await sharp(photo).metadata();
  const small = await sharp(photo).resize(Math.round(m.width! / k)).toBuffer();
  return new Uint8Array(await sharp(small).resize(m.width!, m.height!).jpeg({ quality: 92 }).toBuffer());
}

Deno.test("a face softer than its pixel count is enlarged less, and a close framing of it is widened", async () => {
  // A tall crop at the demo photo's own resolution, and the same crop softened 2x.
  const sharpPhoto = await cropFace(FRONTAL_FACES[9], 0.5625, 3.6);
  const plans = [];
  for (const bytes of [sharpPhoto, await softened(sharpPhoto, 2)]) {
    const photo = await decodePhoto(bytes);
    const face = chooseFace(await detectFaces(engine, photo), photo.width, photo.height);
    const g = faceGeometry(face.mesh);
    const detail = faceDetailScale(photo.data, photo.width, photo.height, g.eyeCenter, g.fw);
    plans.push({ detail, f: framingFor(photo, face, W, H, 0.62) });
  }
  const [crisp, soft] = plans;
  assert.ok(crisp.detail < 1.2, `sharp face read as detail scale ${crisp.detail.toFixed(2)}`);
  assert.ok(soft.detail > 1.7, `softened face read as detail scale ${soft.detail.toFixed(2)}`);
  // At most 1.6x, or a little more where that fills the frame (here 1.62x).
  assert.ok(
    crisp.f.scale <= 1.6 + 1e-3 || (coversFrame(crisp.f) && crisp.f.scale <= 1.6 * 1.25),
    `sharp face enlarged ${crisp.f.scale.toFixed(2)}x`,
  );
  assert.ok(
    soft.f.scale < crisp.f.scale - 0.1,
    `soft ${soft.f.scale.toFixed(2)}x, sharp ${crisp.f.scale.toFixed(2)}x`,
  );
  // Close-Up also blurs the background. The soft face's framing (0.8x) leaves the frame's top and a
  // side to the photo's extended background (filling it would take 1.48x): the note says so too.
  assert.equal(
    framingNote(soft.f, "Close-Up", true),
    "Close-Up was framed wider: the photo's resolution is too low for a closer framing of the face; " +
      "the photo's background was extended above it and at one side: " +
      "the photo alone does not fill the 9:16 frame at a framing it supports",
  );
  // Under a scene's backdrop the extended background is replaced, never seen: not mentioned.
  assert.equal(
    framingNote(soft.f, "Close-Up", true, true),
    "Close-Up was framed wider: the photo's resolution is too low for a closer framing of the face",
  );
  assert.equal(framingNote(soft.f, undefined, false, true), undefined);
});

Deno.test("a small photo enlarged past what it supports says the face looks soft; a larger one does not", async () => {
  // The same 3:4 crop at the demo photo's resolution (596 px wide: 2.4x to reach the frame's bottom)
  // and reduced 1.5x (397 px: 3.6x). Hair studio, Studio Grey: no makeup, nothing else to note.
  const big = await cropFace(FRONTAL_FACES[5]);
  const small = await resized(big, 397, 529);
  const notesOf = async (bytes: Uint8Array) =>
    (await renderKept(engine, job(bytes, { setting: "studio-grey" }, undefined, "hair"))).notes;
  const [bigNotes, smallNotes] = [await notesOf(big), await notesOf(small)];
  assert.ok(!bigNotes.some((n) => n.includes("looks soft")), bigNotes.join(" | "));
  assert.ok(
    smallNotes.includes(
      "The photo's resolution is low for this framing: the face was enlarged 3.6x to fill the frame and " +
        "looks soft; a larger photo gives a sharper result",
    ),
    smallNotes.join(" | "),
  );
});

Deno.test("no framing leaves the photo's bottom edge, or a side the person reaches, inside the frame", () => {
  // Every camera (and none) over photo sizes, face sizes and positions, eye heights.
  const targets = [undefined, ...Object.values(CAMERA_RECIPES).map((c) => c.faceWidth)];
  const sizes = [[480, 640], [700, 900], [1200, 1600], [1600, 900], [1080, 1920], [900, 700], [360, 900], [
    500,
    1400,
  ]];
  let cases = 0, sideCases = 0, fillCases = 0;
  for (const targetFaceWidth of targets) {
    for (const [photoW, photoH] of sizes) {
      for (const faceFrac of [0.15, 0.3, 0.5]) {
        for (const eyeFrac of [0.2, 0.35, 0.5]) {
          for (const eyeX of [0.5, 0.3, 0.75]) {
            const faceWidth = faceFrac * photoW, eye: Point = [eyeX * photoW, eyeFrac * photoH];
            const f = planFraming({ photoW, photoH, eye, faceWidth, outW: W, outH: H, targetFaceWidth });
            const what =
              `${photoW}x${photoH} face ${faceFrac} eyes ${eyeX},${eyeFrac} target ${targetFaceWidth}`;
            const bottom = f.photoRect.y + f.photoRect.h;
            const face = faceWidth * f.scale;
            const full = face >= 0.85 * W - 2; // the rules stop at a face 85% of the frame wide
            // The bottom is reached unless that would make the face wider than 85% of the frame.
            assert.ok(bottom >= H || full, `${what}: photo ends at ${bottom}, face ${face.toFixed(0)}`);
            // A side of the photo within 2 face widths of the face (the shoulders and arms reach it)
            // lies on or beyond the frame's side.
            const left = eye[0] < 2 * faceWidth, right = photoW - eye[0] < 2 * faceWidth;
            if (left && !full) assert.ok(f.offsetX <= 0, `${what}: left edge at ${f.offsetX}`);
            const end = f.offsetX + Math.round(photoW * f.scale);
            if (right && !full) assert.ok(end >= W, `${what}: right edge at ${end}`);
            if (left || right) sideCases++;
            // The top rule (and the same at the sides): a photo as tall (wide) as the frame leaves no
            // edge inside it; the eyes may then be higher than 30% (further out than 30-70%).
            const sw = Math.round(photoW * f.scale), sh = Math.round(photoH * f.scale);
            if (sh >= H) assert.deepEqual([f.photoRect.y, f.photoRect.h], [0, H], `${what}: top inside`);
            if (sw >= W) assert.deepEqual([f.photoRect.x, f.photoRect.w], [0, W], `${what}: side inside`);
            const ex = (eye[0] * f.scale + f.offsetX) / W, ey = (eye[1] * f.scale + f.offsetY) / H;
            if (sw < W) {
              assert.ok(ex >= 0.3 - 1e-3 && ex <= 0.7 + 1e-3, `${what}: eyes x at ${ex.toFixed(3)}`);
            }
            assert.ok(ey <= 0.47 + 1e-3, `${what}: eyes at ${ey.toFixed(3)}`);
            if (f.offsetY < 0) assert.ok(ey >= 0.3 - 1e-3, `${what}: eyes at ${ey.toFixed(3)}`);
            // The framing enlarges at most 1.6x, unless the bottom or the sides need more, or at most
            // 1.25x more than that fills the frame.
            const cover = Math.max(W / photoW, H / photoH);
            const needed = Math.max(
              1.6,
              (0.53 * H) / (photoH - eye[1]),
              left ? (0.3 * W) / eye[0] : 0,
              right ? (0.3 * W) / (photoW - eye[0]) : 0,
              left && right ? W / photoW : 0,
            );
            assert.ok(
              f.scale <= needed * 1.01 || (f.scale <= cover * 1.001 && coversFrame(f)),
              `${what}: enlarged ${f.scale.toFixed(2)}x, needed ${needed.toFixed(2)}`,
            );
            // A photo that 1.25x more enlargement (the face at most 85% of the frame, 4x at most) lets
            // fill the frame fills it.
            if (!coversFrame(f)) {
              assert.ok(
                cover > 1.25 * f.scale * 0.999 || cover * faceWidth > 0.85 * W + 1 || cover > 4,
                `${what}: ${f.scale.toFixed(2)}x leaves part of the frame empty, ${
                  cover.toFixed(2)
                }x fills it`,
              );
              fillCases++;
            }
            cases++;
          }
        }
      }
    }
  }
  assert.ok(cases > 1000 && sideCases > 300, `${cases} cases, ${sideCases} with a side the person reaches`);
  assert.ok(fillCases > 50, `${fillCases} cases with part of the frame left to the extended background`);
});

Deno.test("a camera whose framing is the one the photo gets anyway is named as not applied", () => {
  // A head-and-shoulders crop: Full Frame (no blur) and no camera both end at the bottom rule's framing.
  const input = { photoW: 600, photoH: 800, eye: [300, 330] as Point, faceWidth: 260, outW: W, outH: H };
  const none = planFraming(input), full = planFraming({ ...input, targetFaceWidth: 0.18 });
  assert.deepEqual([full.scale, full.offsetX, full.offsetY], [none.scale, none.offsetX, none.offsetY]);
  assert.equal(
    framingNote(full, "Full Frame (wide)"),
    'Camera Lens "Full Frame (wide)" was not applied: the photo ends too close below the face for a wider framing',
  );
  // A camera that also blurs the background still changes the image: its framing is only qualified.
  assert.equal(
    framingNote(full, "Shallow Depth of Field", true),
    "Shallow Depth of Field was framed closer: the photo ends too close below the face for a wider framing",
  );
});

Deno.test("a camera framed closer because the photo is too narrow says so", () => {
  // A 400x1000 photo, face 200 px: Half Body (face 26% of the frame) would show both sides.
  const f = planFraming({
    photoW: 400,
    photoH: 1000,
    eye: [200, 330],
    faceWidth: 200,
    outW: W,
    outH: H,
    targetFaceWidth: 0.26,
  });
  assert.equal(f.photoRect.x, 0);
  assert.equal(f.photoRect.w, W);
  assert.equal(
    framingNote(f, "Half Body", true),
    "Half Body was framed closer: the photo is too narrow for a wider framing without showing the person cut off at its sides",
  );
});

/**
 * The person's alpha in a render, from two renders over a white and a black
 * backdrop: the backdrop changes where the person is not.
 */
async function personAlpha(photo: Uint8Array, options: Partial<SelectedOptions>) {
  const [white, black] = await Promise.all(
    ["studio-white", "studio-black"].map(async (setting) => {
      const res = await renderKept(engine, job(photo, { ...options, setting }));
      return { img: await decode(res.image), notes: res.notes };
    }),
  );
  const a = new Float32Array(W * H);
  for (let p = 0; p < W * H; p++) {
    let d = 0;
    for (let c = 0; c < 3; c++) d += Math.abs(white.img.data[p * 3 + c] - black.img.data[p * 3 + c]);
    a[p] = Math.max(0, 1 - d / (3 * 200)); // the two backdrops differ by ~200 levels per channel
  }
  return { alpha: a, notes: white.notes };
}

/** Person pixels (alpha >= 0.5) in row y. */
const rowCover = (a: Float32Array, y: number) => {
  let n = 0;
  for (let x = 0; x < W; x++) if (a[y * W + x] >= 0.5) n++;
  return n;
};

const bottomCases: [string, () => Promise<Uint8Array>, Partial<SelectedOptions>, string][] = [
  [
    "a head-and-shoulders portrait, Half Body",
    () => cropFace(FACE),
    { cameraLens: "half-body" },
    "Half Body was framed closer: the photo ends too close below the face for a wider framing",
  ],
  [
    "a small portrait crop, Portrait 85mm",
    () => cropFace([1, 773, 386, 327], 0.75, 1.5),
    { cameraLens: "portrait-85mm" },
    "Portrait (85mm, blurred background) was framed closer: the photo ends too close below the face for a wider framing",
  ],
];

for (const [name, make, options, note] of bottomCases) {
  Deno.test(`${name}: the person reaches the frame's bottom row, no floating bust`, async () => {
    const { alpha, notes } = await personAlpha(await make(), options);
    assert.ok(notes.includes(note), `notes: ${JSON.stringify(notes)}`);
    const bottom = rowCover(alpha, H - 1), above = rowCover(alpha, H - 80);
    assert.ok(bottom > 0.25 * W, `person across ${bottom} px of the bottom row`);
    // The body goes on to the edge: no fade or taper toward the bottom.
    assert.ok(bottom >= 0.85 * above, `bottom row ${bottom} px, 80 rows up ${above} px`);
  });
}

/**
 * The longest run of rows over which the person's leftmost or rightmost pixel
 * (alpha >= 0.5) stays in the same column (within 2 px) inside the frame: the
 * photo's side edge cutting the person off shows as such a straight line.
 */
function longestVerticalCut(a: Float32Array): number {
  let best = 0;
  for (const fromLeft of [true, false]) {
    let run = 0, at = -99;
    for (let y = 0; y < H; y++) {
      let x = -1;
      for (let k = 0; k < W && x < 0; k++) {
        const i = fromLeft ? k : W - 1 - k;
        if (a[y * W + i] >= 0.5) x = i;
      }
      const inside = x >= 3 && x <= W - 4;
      if (inside && Math.abs(x - at) <= 2) run++;
      else [run, at] = [inside ? 1 : 0, x];
      best = Math.max(best, run);
    }
  }
  return best;
}

const narrowCases: [string, () => Promise<Uint8Array>, Partial<SelectedOptions>][] = [
  ["a narrow crop (1:2), Half Body", () => cropFace(FRONTAL_FACES[9], 0.5, 2.4), { cameraLens: "half-body" }],
  ["a narrow crop (1:2), Portrait 85mm", () => cropFace(FACE, 0.5, 2.4), { cameraLens: "portrait-85mm" }],
];

for (const [name, make, options] of narrowCases) {
  Deno.test(`${name}: no edge of the person cut off by the photo's side inside the frame`, async () => {
    const { alpha } = await personAlpha(await make(), options);
    // The person's natural outline stays in one column for at most ~140 rows (an arm hanging
    // down); the photo's side cut the person along 345-389 rows before these framings.
    const cut = longestVerticalCut(alpha);
    assert.ok(cut < 200, `the person ends in a vertical line ${cut} rows long`);
  });
}

Deno.test("an edge of the photo inside the frame is feathered, not a hard line", async () => {
  const photo = await topPart(await cropFace(FACE, 0.75), 0.6);
  const f = await framingOf(photo);
  const bottom = f.photoRect.y + f.photoRect.h;
  assert.ok(bottom < H - 40, `this photo leaves an edge (bottom ${bottom})`);
  for (const setting of ["none", "studio-grey"]) {
    const out = await decode(
      (await renderKept(engine, job(photo, setting === "none" ? {} : { setting }))).image,
    );
    // The largest row-to-row step of the row mean around the photo's bottom edge stays small.
    const rowMean = (y: number) => {
      let s = 0;
      for (let x = 0; x < W; x++) {
        const i = (y * W + x) * 3;
        s += out.data[i] + out.data[i + 1] + out.data[i + 2];
      }
      return s / (3 * W);
    };
    let maxStep = 0;
    for (let y = bottom - 60; y < Math.min(H - 1, bottom + 20); y++) {
      maxStep = Math.max(maxStep, Math.abs(rowMean(y + 1) - rowMean(y)));
    }
    assert.ok(maxStep < 3, `${setting}: hard edge, row step ${maxStep.toFixed(1)} at the photo's bottom`);
  }
});

/**
 * A synthetic 500x500 portrait: a background that darkens from left to right
 * with a little pixel noise, a dark "head" from row 60 down: its framing
 * (face 200 px, eyes at 150) leaves ~470 rows above the photo.
 */
function syntheticPortrait(): Canvas {
  const w = 500, h = 500, data = new Uint8Array(w * h * 3);
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3, n = (rnd() - 0.5) * 12;
      const head = ((x - 250) / 110) ** 2 + ((y - 190) / 130) ** 2 < 1 ||
        (y > 300 && Math.abs(x - 250) < 200);
      const bg = [200 - 0.16 * x, 170 - 0.1 * x, 120];
      const c = head ? [70, 50, 40] : bg;
      for (let k = 0; k < 3; k++) data[i + k] = Math.max(0, Math.min(255, Math.round(c[k] + n)));
    }
  }
  return { data, width: w, height: h };
}

Deno.test("the frame beyond a photo that cannot fill it continues the photo's own edge: no band, no fade", async () => {
  const photo = syntheticPortrait();
  const f = planFraming({ photoW: 500, photoH: 500, eye: [250, 150], faceWidth: 200, outW: W, outH: H });
  const r = f.photoRect;
  assert.ok(!coversFrame(f) && r.y > 300 && r.x === 0 && r.w === W, `photo at ${JSON.stringify(r)}`);
  const out = await renderFramed(photo, f);
  const at = (x: number, y: number, c: number) => out.data[(y * W + x) * 3 + c];
  // The background the photo shows at column x (photo coordinates, as framed).
  const bg = (x: number, c: number) => [200 - 0.16 * x, 170 - 0.1 * x, 120][c];
  let seam = 0, far = 0, inside = 0, streak = 0;
  for (let x = 20; x < W - 20; x++) {
    const px = (x - f.offsetX) / f.scale;
    for (let c = 0; c < 3; c++) {
      // Just above the photo, at the frame's top, and the photo's own top rows: its background colour
      // (a blurred, darkened fill differed by ~85 levels, and faded the photo's top rows into it).
      seam = Math.max(seam, Math.abs(at(x, r.y - 1, c) - bg(px, c)));
      far += (at(x, 0, c) - bg(px, c)) / (3 * (W - 40));
      inside = Math.max(inside, Math.abs(at(x, r.y + 8, c) - bg(px, c)));
      // Smooth: the photo's pixel noise is not drawn out into streaks.
      streak = Math.max(streak, Math.abs(at(x, r.y - 40, c) - at(x - 1, r.y - 40, c)));
    }
  }
  assert.ok(
    seam <= 8 && inside <= 12,
    `background off by ${seam} above the photo's edge, ${inside} below it`,
  );
  assert.ok(Math.abs(far) <= 2, `background off by ${far.toFixed(1)} on average at the frame's top`);
  assert.ok(streak <= 2, `neighbouring columns differ by ${streak} levels 40 rows above the photo`);
  assert.equal(
    framingNote(f),
    "The photo's background was extended above it: the photo alone does not fill the 9:16 frame at a framing it supports",
  );
});

Deno.test("a camera framed closer so that the photo fills the frame says so; an extended frame is named", () => {
  // A 600x800 portrait, face 200 px: Portrait 85mm (face 42% of the frame, 2.27x) is below the bottom
  // rule's 2.02x ... and 2.4x fills the frame.
  const input = { photoW: 600, photoH: 800, eye: [300, 300] as Point, faceWidth: 200, outW: W, outH: H };
  const f = planFraming({ ...input, targetFaceWidth: 0.42 });
  assert.ok(coversFrame(f), `photo at ${JSON.stringify(f.photoRect)}`);
  assert.equal(f.adjusted, "fill");
  assert.equal(
    framingNote(f, "Portrait 85mm", true),
    "Portrait 85mm was framed closer: the photo is too small around the person to fill a wider frame",
  );
  assert.equal(framingNote(planFraming(input)), undefined, "no camera, the frame filled: no note");
  // The same framing of a photo cut close above the head cannot fill the frame: the note names the
  // extended background, with or without a camera.
  const short = { ...input, photoH: 500, eye: [300, 150] as Point, faceWidth: 220 };
  const g = planFraming({ ...short, targetFaceWidth: 0.42 });
  assert.ok(!coversFrame(g), `photo at ${JSON.stringify(g.photoRect)}`);
  assert.match(
    framingNote(g, "Portrait 85mm", true) ?? "",
    /; the photo's background was extended above it: /,
  );
  assert.match(framingNote(planFraming(short)) ?? "", /^The photo's background was extended above it: /);
});

Deno.test("raw buffers from every sharp pipeline have the channels the canvas expects", async () => {
  const photo = await decode(await resized(await cropFace(FACE, 1, 1.45), 700, 700));
  const canvas: Canvas = { data: photo.data, width: photo.width, height: photo.height };
  const f = planFraming({ photoW: 700, photoH: 700, eye: [350, 300], faceWidth: 480, outW: W, outH: H });
  const framed = await renderFramed(canvas, f);
  assert.equal(framed.data.length, W * H * 3, "renderFramed: RGB");
  const setting = optionList("setting", "makeup").find((e) => e.id === "beach-sunset") as SettingEntry;
  assert.equal((await renderBackdrop(setting, W, H, [540, 700], 1)).length, W * H * 3, "renderBackdrop: RGB");
  assert.equal((await blurredCopy(framed, 1)).length, W * H * 3, "blurredCopy: RGB");
  // A mid-grey photo stays mid-grey through the framing (no channel shuffling).
  const grey: Canvas = { data: new Uint8Array(400 * 400 * 3).fill(128), width: 400, height: 400 };
  const fg = planFraming({ photoW: 400, photoH: 400, eye: [200, 160], faceWidth: 150, outW: W, outH: H });
  const fr = await renderFramed(grey, fg);
  const r = fg.photoRect;
  const i = ((r.y + (r.h >> 1)) * W + r.x + (r.w >> 1)) * 3;
  assert.deepEqual([...fr.data.subarray(i, i + 3)], [128, 128, 128]);
  // The person matte covers the whole canvas grid.
  const g = faceGeometry((await engine.detect(framed))[0].mesh);
  const pm = await personMask(engine, framed, g, f.photoRect, false);
  assert.equal(pm.data.length, pm.w * pm.h);
  assert.equal(pm.w, Math.ceil(W / pm.step));
});

// Keep sharp's cache from holding buffers between tests.
sharp.cache(false);

Deno.test("a camera's note names the extended background only where it shows: not under a scene's backdrop", async () => {
  // sample5@727's 3:4 crop does not fill the frame at Half Body's framing: its background is extended above
  // it. Over City Night the backdrop replaces that background, and the note said it had been extended.
  const photo = await cropFace(FRONTAL_FACES[10]);
  const notesOf = async (changes: Partial<SelectedOptions>) =>
    (await renderKept(engine, job(photo, { cameraLens: "half-body", ...changes }, undefined, "makeup")))
      .notes;
  const plain = await notesOf({}), scene = await notesOf({ setting: "city-night" });
  const camera = "Half Body was framed closer: the photo ends too close below the face for a wider framing";
  assert.ok(
    plain.some((n) => n.startsWith(camera) && n.includes("was extended above it")),
    plain.join(" | "),
  );
  assert.ok(scene.includes(camera), scene.join(" | "));
  assert.ok(!scene.some((n) => n.includes("extended")), scene.join(" | "));
});
