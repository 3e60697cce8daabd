/**
 * Looks at the local model's results as a person would: one look rendered on the sixteen frontal test faces
 * (tests/imaging/fixtures.ts: @vladmandic/face-api's demo photos, MIT, cropped from node_modules at run time),
 * each beside the same photo rendered with no choice, on one contact sheet. This is how most of the faults in
 * docs/local-model-status.md were found: a figure in a bench says how much, the sheet says where to look.
 *
 * Usage:
 *   deno run -A scripts/contact-sheet.ts [--studio makeup|hair|barber] [--intensity 0-100]
 *     [--changes] [--out DIR] '<options as JSON>'
 *   deno run -A scripts/contact-sheet.ts --studio hair '{"hairColor":"auburn","setting":"beach-sunset"}'
 *
 * Writes DIR/sheet.png (8 columns x 4 rows of 270x480 tiles: each face's plain render, then its result) and
 * each result at full size (DIR/s<sample>-<x>.jpg), and prints each face's render time and notes. DIR
 * defaults to a new temporary directory: renders of the test photos never belong in the repository.
 *
 * --changes also writes where the look changed the photo, DIR/s<sample>-<x>-changes.png: each pixel's ΔE
 * between the plain render and the result, x10 as grey (black: unchanged; white: ΔE 25.5 or more), and prints
 * the share of pixels changed by more than ΔE 3. A dye's or a lipstick's reach, its straight edges and the
 * patches it skipped show there at a glance. It compares pixel for pixel, so it is for looks that keep the
 * plain render's framing (no camera) and, to see a dye or makeup alone, no setting.
 */
import type { Buffer } from "node:buffer";
import sharp from "sharp";
import { FaceEngine } from "../server/imaging/local/face-engine.ts";
import { AppError } from "../server/http/errors.ts";
import { resolveStyleRequest } from "../server/styling/styling.service.ts";
import { STUDIO_TYPES, type StudioType } from "../server/styling/option-keys.ts";
import { deltaE, srgbToLab } from "../server/imaging/local/color.ts";
import { cropFace, FRONTAL_FACES, job, renderKept } from "../tests/imaging/fixtures.ts";
import { intensityAll } from "../tests/imaging/makeup-metrics.ts";

const TILE_W = 270, TILE_H = 480, COLUMNS = 8;

function fail(message: string): never {
  console.error(`contact-sheet: ${message}`);
  Deno.exit(2);
}

function parseArgs(args: string[]) {
  let studio: StudioType = "makeup", intensity = 60, out: string | undefined, look: string | undefined;
  let changes = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--studio") {
      const s = args[++i];
      if (!(STUDIO_TYPES as readonly string[]).includes(s)) fail(`--studio must be one of ${STUDIO_TYPES}`);
      studio = s as StudioType;
    } else if (a === "--intensity") {
      intensity = Number(args[++i]);
      if (!Number.isInteger(intensity) || intensity < 0 || intensity > 100) fail("--intensity must be 0-100");
    } else if (a === "--out") out = args[++i] ?? fail("--out needs a directory");
    else if (a === "--changes") changes = true;
    else if (look === undefined) look = a;
    else fail(`unexpected argument ${a}`);
  }
  if (look === undefined || look.length > 4096) fail("give the look as one JSON object (at most 4 KB)");
  let options: Record<string, unknown>;
  try {
    options = JSON.parse(look);
  } catch {
    fail("the look is not JSON");
  }
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    fail("the look is not an object");
  }
  // The catalogue's own check, as generate and preview run it (unknown keys and values named with the allowed ones).
  try {
    const resolved = resolveStyleRequest({ studioType: studio, options }, null).options;
    // Every render is 1080x1920, so a camera's other framing would compare without complaint, and mean nothing.
    const plainCamera = resolveStyleRequest({ studioType: studio, options: {} }, null).options.cameraLens;
    if (changes && resolved.cameraLens !== plainCamera) {
      fail("--changes compares pixel for pixel: leave out cameraLens");
    }
    return { studio, intensity, out, changes, options: resolved };
  } catch (e) {
    if (e instanceof AppError) fail(e.message);
    throw e;
  }
}

const { studio, intensity, out, changes, options } = parseArgs(Deno.args);
const dir = out ?? await Deno.makeTempDir({ prefix: "contact-sheet-" });
await Deno.mkdir(dir, { recursive: true });
const level = intensityAll(intensity);

/**
 * Writes the map of where `after` differs from `before` (see --changes above) to `path`; returns the share of
 * pixels changed by more than ΔE 3, as printed.
 */
async function writeChanges(before: Uint8Array, after: Uint8Array, path: string): Promise<string> {
  const [a, b] = await Promise.all(
    [before, after].map((image) => sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true })),
  );
  const { width, height } = a.info;
  const map = new Uint8Array(width * height);
  let over3 = 0;
  for (let p = 0, o = 0; p < map.length; p++, o += 3) {
    const d = a.data[o] === b.data[o] && a.data[o + 1] === b.data[o + 1] && a.data[o + 2] === b.data[o + 2]
      ? 0
      : deltaE(
        srgbToLab(a.data[o], a.data[o + 1], a.data[o + 2]),
        srgbToLab(b.data[o], b.data[o + 1], b.data[o + 2]),
      );
    if (d > 3) over3++;
    map[p] = Math.min(255, Math.round(d * 10));
  }
  await sharp(map, { raw: { width, height, channels: 1 } }).png().toFile(path);
  return `, ${(100 * over3 / map.length).toFixed(1)} % of pixels changed by > ΔE 3`;
}

const engine = await FaceEngine.load();
{
  const tiles: { input: Buffer; left: number; top: number }[] = [];
  for (const [i, face] of FRONTAL_FACES.entries()) {
    const photo = await cropFace(face);
    const name = `s${face[0]}-${face[1]}`;
    const plain = await renderKept(engine, job(photo, {}, level, studio));
    const started = performance.now();
    const result = await renderKept(engine, job(photo, options, level, studio));
    const ms = performance.now() - started;
    const changed = changes
      ? await writeChanges(plain.image, result.image, `${dir}/${name}-changes.png`)
      : "";
    console.log(
      `sample${face[0]}@${face[1]} ${ms.toFixed(0)} ms${changed}${
        result.notes.map((n) => `\n  note: ${n}`).join("")
      }`,
    );
    await sharp(result.image).jpeg({ quality: 92 }).toFile(`${dir}/${name}.jpg`);
    const x = (2 * i) % COLUMNS * TILE_W, y = Math.floor((2 * i) / COLUMNS) * TILE_H;
    for (const [k, image] of [plain.image, result.image].entries()) {
      tiles.push({
        input: await sharp(image).resize(TILE_W, TILE_H).png().toBuffer(),
        left: x + k * TILE_W,
        top: y,
      });
    }
  }
  const rows = Math.ceil((2 * FRONTAL_FACES.length) / COLUMNS);
  await sharp({
    create: { width: COLUMNS * TILE_W, height: rows * TILE_H, channels: 3, background: "#000" },
  }).composite(tiles).png().toFile(`${dir}/sheet.png`);
  console.log(`wrote ${dir}/sheet.png and ${FRONTAL_FACES.length} results beside it`);
}
// The face models' backend keeps timers alive; the work is done.
Deno.exit(0);
