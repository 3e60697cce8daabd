/**
 * One job, start to finish, inside a worker: decode, find the face, frame 9:16,
 * paint makeup, recolour hair, compose the scene, grade the light, encode.
 */
import sharp, { type JpegOptions } from "sharp";
import type { CatalogEntry } from "../../styling/catalog.ts";
import { defaultOptions, optionList } from "../../styling/catalog.ts";
import type { Intensity, OptionKey, SelectedOptions, StudioType } from "../../styling/option-keys.ts";
import type { Canvas } from "./blend.ts";
import { keyLabel, unsupportedNotes } from "./capabilities.ts";
import type { DetectedFace, FaceModels } from "./face-engine.ts";
import { type FaceGeometry, faceGeometry } from "./face-geometry.ts";
import {
  coverScaled,
  type Framing,
  framingNote,
  mapPoints,
  planFraming,
  rawOf,
  renderFramed,
  softFaceNote,
} from "./framing.ts";
import { recolorFacialHair } from "./facial-hair-recolor.ts";
import {
  type HairCache,
  hairCacheBytes,
  LIGHTER_SHADES,
  newHairCache,
  prepareHair,
  recolorHair,
} from "./hair-recolor.ts";
import { applyMakeup, planMakeup, primeEyes } from "./makeup.ts";
import {
  type CanvasPlace,
  neighbourHeads,
  type PersonMask,
  personMask,
  resampledMask,
  sameFramingScaled,
  takeCellColours,
} from "./person-mask.ts";
import { BACKDROPS, CAMERA_RECIPES, PERSON_LIGHTS } from "./recipes.ts";
import { lightPerson, lightsOnPerson, photoLight } from "./person-light.ts";
import {
  blurredCopy,
  gradeLighting,
  liftedGains,
  personBalance,
  relightCast,
  relightGains,
  renderBackdrop,
} from "./scene.ts";
import { photoExposure } from "./photo-exposure.ts";
import { correctRedEyes } from "./red-eye.ts";
import {
  composeRefined,
  dropBackgroundObjects,
  dropIslands,
  type MattePlan,
  planMatte,
  type RefinedMatte,
  refineMatte,
} from "./matte-refine.ts";
import { dist } from "./masks.ts";
import { decodePhoto, DETECT_LONG, detectFaces } from "./photo-faces.ts";
import type { PrepareStep } from "./prepare-steps.ts";
import { isMonochrome, toGrey } from "./monochrome.ts";

// Where callers have always found them (tests, the worker, the face count).
export { decodePhoto, detectFaces };

export const NO_FACE_MESSAGE = "No face found: use a front-facing photo with one person";
/** Two or more faces and none the photo's clear subject (see chooseFace). */
export const MANY_FACES_MESSAGE =
  "More than one face found and none stands out: use a photo of one person, or crop it to one face";
/** Notes when the eye makeup left an eye bare (the face model put it where the photo shows skin). */
export const ONE_EYE_BARE =
  "Eye makeup was painted on one eye only: the other eye could not be located in the photo (a turned or tilted head)";
export const EYES_BARE =
  "Eye makeup was not painted: the eyes could not be located in the photo (a turned or tilted head)";
export const ONE_EYE_COVERED =
  "Eye makeup was painted on one eye only: hair covers the other eye in the photo";
export const EYES_COVERED = "Eye makeup was not painted: hair covers the eyes in the photo";
export const MONOCHROME_NOTE =
  "The photo is black and white, so the result is too: the colours chosen show as shades of grey";

/**
 * What the result says about eyes the eye layers left bare: `bare` the mesh put on skin (EyeContour.onEye),
 * `covered` under hair (EyeContour.covered). Each eye is judged on its own, so both may be either.
 */
export function eyeMakeupNote(bare: number, covered: number): string | undefined {
  if (bare + covered === 0) return undefined;
  if (bare + covered === 1) return bare ? ONE_EYE_BARE : ONE_EYE_COVERED;
  return covered === 2 ? EYES_COVERED : EYES_BARE;
}

/**
 * Results and previews are JPEG. PNG is the lossless form the tests and benches measure pixels on: stored
 * uncompressed (zlib level 0), as nothing keeps or sends it. At level 6 its encode took 170 ms on a 1080x1920
 * canvas (12 ms at 0) and its decode 45 ms (10 ms), more than a warm render itself: the capabilities test,
 * one render per option value, took 39 s, 14 s at level 0.
 */
export type OutputFormat = "jpeg" | "png";

export interface RenderJob {
  photo: Uint8Array;
  studioType: StudioType;
  options: SelectedOptions;
  intensity: Intensity;
  instructions: string | null;
  references: number;
  width: number;
  height: number;
  format: OutputFormat;
  /** JPEG quality (default 92; previews use less). */
  quality?: number;
  /**
   * Names the photo for the worker's cache of decoded photos and faces (the
   * photo id): a photo styled many times is decoded and searched once.
   */
  cacheKey?: string;
  /**
   * Prepare only (needs `cacheKey`), up to this step (see PREPARE_STEPS), keeping what it made in the worker's
   * cache, and answer an empty image. A photo just uploaded is prepared while its owner picks a look, so their
   * first look renders warm.
   */
  prepareOnly?: PrepareStep;
  /**
   * A live preview's output size: the hair and beard colours are painted at this size, as its result paints
   * them, and the canvas shrunk to the job's size for every other stage. Those colours are measured on the
   * canvas they are painted on (where lengths reach, which straps are left out, whether dark hair would need
   * bleaching), and a measure taken at half the size can fall the other way: sample6@1402's Honey Blonde was
   * refused in the 540x960 preview and dyed in the result. With `prepareOnly`, the hair is not measured at
   * the job's size (the preview never paints it there).
   */
  coloursAt?: { width: number; height: number };
  /** Internal (see paintedColours): stop after the hair and beard colours and answer the canvas. */
  coloursOnly?: boolean;
  /** Internal (see paintedColours): the light the dyes are painted in, for a scene's relight (see relightCast). */
  dyeCast?: readonly number[];
}

/** The canvas with the hair and beard colours painted (see RenderJob.coloursAt). */
interface PaintedColours {
  canvas: Canvas;
  /** The colours the photo refused, with the reasons (as a render's `notes` give them). */
  refusals: string[];
  /** Whether anything asked for changed the canvas (a camera counts, as in a render of the whole look). */
  applied: boolean;
}

export interface RenderOutput {
  image: Uint8Array;
  mime: string;
  notes: string[];
  timings: Record<string, number>;
  /**
   * The photo's decode and faces came from the worker's cache: no decode and no face model ran for
   * this render (its `decode` and `detect` laps are only the cache lookup's).
   */
  photoCached: boolean;
  /**
   * Set when the job asked for changes this model renders and the photo took none of them (a hair
   * colour on hair it could not tell from skin, or that would need bleaching; a beard colour on a
   * shaven face; eye makeup on eyes it could not find): the image is only the photo as framed. The
   * reasons, as in `notes`. A generation is not worth its credits then; a preview still shows it.
   */
  refused?: string[];
  /** Internal: answered instead of an image to a `coloursOnly` job. */
  colours?: PaintedColours;
}

/**
 * A permanent, user-facing failure of the photo itself (no usable face, no clear subject): every job on the
 * photo fails the same way, whatever it asks (ModelError.unusablePhoto).
 */
export class UserFacingError extends Error {}

/**
 * The face the photo is of, if one clearly is and it is usable; otherwise a user-facing error.
 * `minFaceWidth` in the faces' pixels.
 *
 * The subject is the largest whole face. A face the photo's left or right side cuts (see cutBySide: a
 * neighbour the photo was cropped away from) neither competes with it nor is chosen over it, unless no whole
 * face is at least half its area (a selfie whose own face runs off the side, a stranger small behind). Any
 * other whole face competes: the subject must be at least twice a competitor's area and central, or the photo
 * is refused (which person to style is the user's to say, by cropping).
 */
export function chooseFace(
  faces: DetectedFace[],
  width: number,
  height: number,
  minFaceWidth = MIN_FACE_WIDTH,
): DetectedFace {
  const usable = faces.filter((f) => f.score >= 0.5);
  if (usable.length === 0) throw new UserFacingError(NO_FACE_MESSAGE);
  const area = (f: DetectedFace) => f.box[2] * f.box[3];
  // The detector lists faces largest first. A friend cut by the side of a photo cropped about the user is
  // often nearer the camera, so larger: framed 3-3.8 face widths wide, sample5@1045 and sample4@1216 were
  // refused for a cut face 1.1-1.3x their own.
  const whole = usable.filter((f) => !cutBySide(f, width));
  const face = whole.length > 0 && 2 * area(whole[0]) >= area(usable[0]) ? whole[0] : usable[0];
  const rival = whole.find((f) => f !== face);
  if (rival) {
    const cx = (face.box[0] + face.box[2] / 2) / width;
    const cy = (face.box[1] + face.box[3] / 2) / height;
    const central = cx > 0.15 && cx < 0.85 && cy > 0.05 && cy < 0.85;
    if (area(face) < 2 * area(rival) || !central) throw new UserFacingError(MANY_FACES_MESSAGE);
  }
  const fw = dist(face.mesh[234], face.mesh[454]);
  if (fw < minFaceWidth || Math.abs(face.yaw) > 0.65 || Math.abs(face.pitch) > 0.6) {
    throw new UserFacingError(NO_FACE_MESSAGE);
  }
  return face;
}

/**
 * The detector's box of a whole face is square (width within 1 % of height on the 16 frontal test faces and
 * their neighbours); one the photo's side clips is narrower. Cropped 2.6 face widths wide (3:4), five of the
 * 16 test portraits show a neighbour's face cut by a side (boxes 0.59-0.78 as wide as tall) and were refused
 * as group photos.
 */
const CUT_ASPECT = 0.95;

/** Whether the photo's left or right side cuts face `f` (see CUT_ASPECT). */
function cutBySide(f: DetectedFace, width: number): boolean {
  const [x, , w, h] = f.box;
  return (x <= 1 || x + w >= width - 1) && w < CUT_ASPECT * h;
}

function entry<T>(key: OptionKey, studio: StudioType, id: string): T | undefined {
  const list = optionList(key, studio);
  if (id === list[0].id) return undefined;
  return list.find((e) => e.id === id) as T | undefined;
}

/** Smallest usable face width, in pixels of a photo DETECT_LONG px long (or longer). */
const MIN_FACE_WIDTH = 60;

/**
 * The JPEG settings of every result and preview. Huffman tables are not optimised: the optimising pass cost
 * 100-130 ms on a 1080x1920 result (14 ms without; 4-7 ms at 540x960) for a file 2 % smaller (365 against
 * 372 KB on the bench portrait); the pixels decoded are the same either way (the coding is lossless).
 */
export function jpegOptions(quality: number): JpegOptions {
  return { quality, chromaSubsampling: quality >= 90 ? "4:4:4" : "4:2:0", optimiseCoding: false };
}

export async function encode(
  img: Canvas,
  format: OutputFormat,
  quality = 92,
): Promise<{ image: Uint8Array; mime: string }> {
  const s = sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } });
  const buf = format === "png"
    ? await s.png({ compressionLevel: 0, adaptiveFiltering: false }).toBuffer()
    : await s.jpeg(jpegOptions(quality)).toBuffer();
  return {
    image: new Uint8Array(buf.buffer, buf.byteOffset, buf.length),
    mime: format === "png" ? "image/png" : "image/jpeg",
  };
}

/** What one framing of a photo needs that depends on the photo alone, not on the look painted on it. */
export interface FramedPhoto {
  /** Where this framing puts the photo (see sameFramingScaled). */
  framing: CanvasPlace;
  /** The framed canvas as rendered from the photo (callers paint on a copy); dropped by a trim. */
  canvas?: Canvas;
  /** The chosen person's mask for this framing, when a stage needed it. */
  person?: PersonMask;
  /** The matte's pixel-free part (see planMatte), when a backdrop or lens blur needed it; dropped by a trim. */
  plan?: MattePlan;
  /** What the hair recolour measured on the canvas (see HairCache); dropped by a trim. */
  hair?: HairCache;
}

/** A photo decoded and searched for faces once, and its last framings. */
export interface PreparedPhoto {
  photo: Canvas;
  faces: DetectedFace[];
  /** By framingKey, least recently used first (at most FRAMINGS_PER_PHOTO). */
  framed?: Map<string, FramedPhoto>;
}

/** Framings kept per photo: the output's and the live preview's. */
const FRAMINGS_PER_PHOTO = 2;

/** Names a framing (output size, scale and offset): the same key means the same framed canvas and mask. */
export function framingKey(
  f: { width: number; height: number; scale: number; offsetX: number; offsetY: number },
) {
  return `${f.width}x${f.height}@${f.scale},${f.offsetX},${f.offsetY}`;
}

/**
 * The person's mask on `framing`'s canvas, and its cells' colours. Old background the segmenter half took
 * beside the person (a window frame by the hair) goes before anything uses the mask: the hair recolour and
 * the matte alike; so do pieces of a neighbour the split left detached from the person (the hair recolour
 * would dye them; see dropIslands).
 */
async function segmentPerson(
  engine: FaceModels,
  { photo, faces, face }: PhotoFaces,
  framing: Framing,
  g: FaceGeometry,
): Promise<{ person: PersonMask; cells: Float32Array }> {
  // The canvas's size only (the framing's): its pixels may still be being rendered, colours come from the photo.
  const others = neighbourHeads(faces, face, photo, framing);
  const person = await personMask(engine, framing, g, framing.photoRect, others, { photo, ...framing });
  const cells = takeCellColours(person, framing, { photo, ...framing });
  dropBackgroundObjects(person, cells);
  dropIslands(person, g.center);
  return { person, cells };
}

/** A decoded photo, the faces found on it and the one styled. */
interface PhotoFaces {
  photo: Canvas;
  faces: DetectedFace[];
  face: DetectedFace;
}

/**
 * A live preview's person, from its result's: the mask of the framing at the output size (`size`), kept with
 * that framing (a photo prepared at upload has it; otherwise it is made and kept here, and the colours painted
 * at that size use it too), when that framing is the preview's at another size (see sameFramingScaled). The
 * preview then segments nothing of its own (200-240 ms on the demo faces once prepared) and shows the person,
 * neighbours and old background its result will. Undefined when the framings differ.
 */
async function outputPerson(
  engine: FaceModels,
  cache: PhotoCache,
  key: string,
  found: PhotoFaces,
  framing: Framing,
  size: { width: number; height: number },
  faceWidth: number | undefined,
): Promise<{ person: PersonMask; framing: Framing } | undefined> {
  const output = framingFor(found.photo, found.face, size.width, size.height, faceWidth);
  if (output.width <= framing.width || !sameFramingScaled(output, framing)) return undefined;
  const okey = framingKey(output);
  const kept = cache.framed(key, okey);
  if (kept?.person) return { person: kept.person, framing: output };
  const g = faceGeometry(mapPoints(found.face.mesh, output));
  const { person } = await segmentPerson(engine, found, output, g);
  cache.keepFramed(key, okey, { ...kept, framing: output, person });
  return { person, framing: output };
}

function preparedBytes(p: PreparedPhoto): number {
  let n = p.photo.data.byteLength;
  for (const f of p.framed?.values() ?? []) {
    // The plan's kept region shares the person's `doubted` cells (one array), counted once here.
    n += (f.canvas?.data.byteLength ?? 0) + (f.person?.data.byteLength ?? 0) +
      (f.person?.doubted?.byteLength ?? 0);
    if (f.plan) {
      n += f.plan.p.byteLength + f.plan.pMean.byteLength + f.plan.near.byteLength +
        f.plan.kept.data.byteLength;
    }
    if (f.hair) n += hairCacheBytes(f.hair);
  }
  return n;
}

/**
 * The last few prepared photos of one worker, by cache key (least recently
 * used first out). A 2048 px photo is ~12 MB decoded and a 1080x1920 framing
 * ~7 MB with its mask: the count and the bytes held are both bounded.
 */
export class PhotoCache {
  #entries = new Map<string, PreparedPhoto>();
  constructor(readonly capacity = 4, readonly maxBytes = 96e6) {}
  get(key: string): PreparedPhoto | undefined {
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }
  set(key: string, value: PreparedPhoto): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#evict();
  }
  /** The framing `fkey` of photo `key`, if kept. */
  framed(key: string, fkey: string): FramedPhoto | undefined {
    const map = this.#entries.get(key)?.framed;
    const hit = map?.get(fkey);
    if (map && hit) {
      map.delete(fkey);
      map.set(fkey, hit);
    }
    return hit;
  }
  /** Keeps a framing of photo `key` (which must be cached already; otherwise nothing is kept). */
  keepFramed(key: string, fkey: string, value: FramedPhoto): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    const map = entry.framed ??= new Map();
    map.delete(fkey);
    map.set(fkey, value);
    while (map.size > FRAMINGS_PER_PHOTO) map.delete(map.keys().next().value!);
    this.#evict();
  }
  #evict(): void {
    let bytes = 0;
    for (const e of this.#entries.values()) bytes += preparedBytes(e);
    // The most recent photo stays even alone over the budget (it is the one being styled).
    while (this.#entries.size > this.capacity || (bytes > this.maxBytes && this.#entries.size > 1)) {
      const oldest = this.#entries.keys().next().value!;
      bytes -= preparedBytes(this.#entries.get(oldest)!);
      this.#entries.delete(oldest);
    }
  }
  /**
   * Keeps each photo's decode, faces and person masks (what took the face models) and drops its framed
   * canvases and matte plans (~12 MB a photo at 1080x1920), which the next look rebuilds: a worker
   * going idle gives their memory back, and the look after the pause needs no decode and no face
   * model (306-529 ms against 517-1016 cold and 185-367 warm, one render thread, same runs).
   * The photo used last keeps its hair measures too (2.8-5.4 MB at 1080x1920): its owner is the one likely
   * to come back, and measured again in the worker the hair took 792-1040 ms of a hair colour's preview
   * after the pause (a process that runs the measure over and over takes 150-185 ms; a worker runs it once
   * or twice per photo), against 244-326 ms painted from the kept measure on the output's canvas framed
   * again (60-116 ms warm). The rebuilt canvas is the one measured: the framing and
   * the red-eye correction give the same pixels each time.
   */
  trim(): void {
    const last = [...this.#entries.values()].at(-1);
    for (const e of this.#entries.values()) {
      for (const f of e.framed?.values() ?? []) {
        f.canvas = undefined;
        f.plan = undefined;
        if (e !== last) f.hair = undefined;
      }
    }
  }
  /** Drops everything kept of photo `key` (the photo was deleted). */
  delete(key: string): void {
    this.#entries.delete(key);
  }
  get size(): number {
    return this.#entries.size;
  }
  /** Bytes of pixels and masks held. */
  get bytes(): number {
    let n = 0;
    for (const e of this.#entries.values()) n += preparedBytes(e);
    return n;
  }
}

/**
 * The framing of `face` (photo coordinates) for an output of outW x outH;
 * `targetFaceWidth` is the lens's face width, if one was chosen.
 */
export function framingFor(
  photo: { width: number; height: number; data?: Uint8Array },
  face: DetectedFace,
  outW: number,
  outH: number,
  targetFaceWidth?: number,
): ReturnType<typeof planFraming> {
  const src = faceGeometry(face.mesh);
  return planFraming({
    photoW: photo.width,
    photoH: photo.height,
    pixels: photo.data,
    eye: src.eyeCenter,
    faceWidth: src.fw,
    outW,
    outH,
    targetFaceWidth,
  });
}

/**
 * Renders one job. Speculative libvips work (the cover-scaled photo, the framed
 * canvas, the backdrop) runs on libvips threads while this thread works on; it
 * is always settled before this returns or throws, so a worker that has
 * answered has no native work reading its memory and may be terminated (a
 * libvips thread reading a terminated worker's buffers crashes the process).
 */
export async function render(engine: FaceModels, job: RenderJob, cache?: PhotoCache): Promise<RenderOutput> {
  const inFlight: Promise<unknown>[] = [];
  // The colours painted at another size reuse this render's decode and faces (see paintedColours).
  if (job.coloursAt && !(cache && job.cacheKey)) {
    cache = new PhotoCache(1), job = { ...job, cacheKey: "render" };
  }
  try {
    return await renderStages(engine, job, cache, inFlight);
  } finally {
    await Promise.allSettled(inFlight);
  }
}

/**
 * The job's hair and beard colours painted at its `coloursAt` size, framed as a job of that size with the
 * same camera is (so from the framing, person mask and hair measure kept for it, as a photo prepared at upload
 * has them), with nothing else painted.
 */
async function paintedColours(
  engine: FaceModels,
  job: RenderJob,
  cache: PhotoCache | undefined,
  inFlight: Promise<unknown>[],
): Promise<PaintedColours> {
  const { width, height } = job.coloursAt!;
  const options = { ...defaultOptions(job.studioType) };
  for (const k of ["hairColor", "facialHairColor", "cameraLens"] as const) options[k] = job.options[k];
  const out = await renderStages(
    engine,
    { ...job, options, width, height, instructions: null, references: 0, coloursOnly: true },
    cache,
    inFlight,
  );
  return out.colours!;
}

/** `img` brought down to width x height (libvips' Lanczos kernel). */
function shrunk(img: Canvas, width: number, height: number): Promise<Canvas> {
  const p = sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize(width, height, { fit: "fill" });
  return rawOf(p, 3, "shrunk canvas");
}

async function renderStages(
  engine: FaceModels,
  job: RenderJob,
  cache: PhotoCache | undefined,
  inFlight: Promise<unknown>[],
): Promise<RenderOutput> {
  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.push(p);
    // Awaited later or by the finally above: no unhandled rejection if a stage throws first.
    p.catch(() => {});
    return p;
  };
  const timings: Record<string, number> = {};
  let t = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    timings[name] = Math.round((now - t) * 10) / 10;
    t = now;
  };
  const studio = job.studioType;
  const o = job.options;
  const notes = unsupportedNotes(o, studio);
  if (job.instructions && job.instructions.trim()) {
    notes.push("Additional instructions are not applied by the local model");
  }
  if (job.references > 0) notes.push("Reference photos are not used by the local model");

  const key = job.cacheKey && cache ? job.cacheKey : undefined;
  const cached = key ? cache!.get(key) : undefined;
  const photo = cached?.photo ?? await decodePhoto(job.photo);
  lap("decode");
  // Speculative: most portraits are framed at the cover scale (see coverScaled). A cached photo's
  // framing is known before any pixel work (and may be cached itself).
  // Awaited by renderFramed; a failure there falls back to its own resize.
  const prepareOnly = key ? job.prepareOnly : undefined;
  const prescaled = cached || prepareOnly === "faces"
    ? undefined
    : track(coverScaled(photo, job.width, job.height));
  const faces = cached?.faces ?? await detectFaces(engine, photo);
  if (key && !cached) cache!.set(key, { photo, faces });
  // The face size limit is the one a photo enlarged to DETECT_LONG px had.
  const long = Math.max(photo.width, photo.height);
  const face = chooseFace(faces, photo.width, photo.height, MIN_FACE_WIDTH * Math.min(1, long / DETECT_LONG));
  lap("detect");
  if (prepareOnly === "faces") {
    return { image: new Uint8Array(0), mime: "", notes: [], timings, photoCached: !!cached };
  }

  const camera = entry<CatalogEntry>("cameraLens", studio, o.cameraLens);
  const lens = camera ? CAMERA_RECIPES[camera.id] : undefined;
  const setting = entry<CatalogEntry>("setting", studio, o.setting);
  const backdrop = setting && BACKDROPS[setting.id];
  const lighting = entry<CatalogEntry>("lighting", studio, o.lighting);
  // A lighting option with a direction and a scene's backlight light the person through their matte (see
  // person-light.ts).
  const personLight = lightsOnPerson(lighting && PERSON_LIGHTS[lighting.id], backdrop && backdrop.backlight);
  const framing = framingFor(photo, face, job.width, job.height, lens?.faceWidth);
  // Where the photo's background was extended to fill the frame is not said under a scene's backdrop,
  // which replaces that background.
  const reframed = framingNote(framing, camera?.label, (lens?.backgroundBlur ?? 0) > 0, !!backdrop);
  if (reframed) notes.push(reframed);
  const soft = softFaceNote(framing);
  if (soft) notes.push(soft);
  // The framed canvas is rendered by libvips threads; meanwhile this thread
  // segments the person from the photo as framed (the matte needs only the
  // framing, not the canvas).
  const fkey = framingKey(framing);
  const kept = key ? cache!.framed(key, fkey) : undefined;
  const framed = kept?.canvas
    ? Promise.resolve({ ...kept.canvas, data: kept.canvas.data.slice() })
    : track(renderFramed(photo, framing, prescaled ?? track(coverScaled(photo, job.width, job.height))));
  const g = faceGeometry(mapPoints(face.mesh, framing));
  // Makeup on a tilted head follows its upright measure (see detectFaces), the lips excepted (see
  // applyMakeup); the framing, matte and hair models keep the mesh as found (decision 021).
  const makeupG = face.uprightMesh ? faceGeometry(mapPoints(face.uprightMesh, framing)) : g;
  const hairColor = entry<{ hex?: string; label: string }>("hairColor", studio, o.hairColor);
  const blur = lens?.backgroundBlur ?? 0;
  let person: PersonMask | undefined;
  /** The person mask's cell colours, when it was made here (see dropBackgroundObjects). */
  let cells: Float32Array | undefined;
  const beardColor = entry<{ hex?: string; label: string }>("facialHairColor", studio, o.facialHairColor);
  // The colours are painted on this canvas, or at the preview's output size (see coloursAt).
  const colours = !!(hairColor?.hex || beardColor?.hex);
  const coloursElsewhere = !!job.coloursAt && !job.coloursOnly;
  if ((colours && !coloursElsewhere) || backdrop || blur > 0 || personLight || prepareOnly) {
    person = kept?.person;
    if (!person) {
      const found = { photo, faces, face };
      const output = key && coloursElsewhere
        ? await outputPerson(engine, cache!, key, found, framing, job.coloursAt!, lens?.faceWidth)
        : undefined;
      if (output) {
        person = resampledMask(output.person, output.framing, framing);
        // Its cells' colours on this canvas, which the matte is planned with, as a fresh mask's is (from the
        // photo: the canvas's pixels are still being rendered).
        cells = takeCellColours(person, framing, { photo, ...framing });
      } else {
        ({ person, cells } = await segmentPerson(engine, found, framing, g));
      }
    }
    lap("segment");
  }
  // The side the photo was lit from and how one-sided its light is (see photoLight), measured on the photo
  // before anything is painted: the lights' key and a scene's backlight take that side.
  const litFrom = personLight ? photoLight(photo, faceGeometry(face.mesh)) : undefined;
  // While libvips threads still render the canvas: the matte's pixel-free part, and a scene not yet
  // in the worker's cache (painted small here, enlarged and blurred by libvips threads meanwhile).
  const scene = person && setting && backdrop
    ? track(renderBackdrop(setting, framing.width, framing.height, g.center, blur, litFrom?.side))
    : undefined;
  // A person kept without its plan (a look with no scene made it, or the worker trimmed the plan while idle) is
  // planned with its cells' colours taken from the photo again, as a fresh mask's are: planned without them, the
  // first refineMatte checks the plan with the canvas's colours instead (see checkPlan), and on 3 of 16 demo faces
  // the matte came out unlike a fresh render's, so a look's result depended on the looks styled before it.
  const plan = person && !job.coloursOnly && (scene || blur > 0 || personLight || prepareOnly)
    ? kept?.plan ??
      planMatte(framing, person, g.center, cells ?? takeCellColours(person, framing, { photo, ...framing }))
    : undefined;
  if (plan) lap("plan");
  const img = await framed;
  // A flash's red pupils darkened before anything reads or paints the canvas (see red-eye.ts); a kept canvas
  // was corrected when it was made.
  if (!kept?.canvas) correctRedEyes(img, g);
  // The hair's measurements of this canvas (see HairCache): kept with the framing, when it is kept.
  const hair = kept?.hair ?? newHairCache();
  if (key && (!kept?.canvas || (person && !kept.person) || (plan && !kept.plan) || !kept.hair)) {
    cache!.keepFramed(key, fkey, {
      framing,
      canvas: kept?.canvas ?? { ...img, data: img.data.slice() },
      // (A look that needed no mask keeps the one an earlier look made, which a trim keeps too.)
      person: person ?? kept?.person,
      plan: plan ?? kept?.plan,
      hair,
    });
  }
  lap("frame");
  const photoCached = !!cached;
  if (prepareOnly) {
    // The hair, measured while the owner picks a shade: at the `hair` step for the shades that darken no light
    // hair (nearly every look's), at `darkerHair` for the others too (see PREPARE_STEPS).
    if (!coloursElsewhere && prepareOnly !== "person") {
      prepareHair(img, g, person!, hair, prepareOnly === "hair" ? LIGHTER_SHADES : undefined);
    }
    lap("hair");
    return { image: new Uint8Array(0), mime: "", notes: [], timings, photoCached };
  }
  // Measured on the photo before anything is painted: the light the person was photographed in (see
  // personBalance), its exposure, which lights the dyes' and a light eye shadow's shades and the person on a
  // backdrop (see photoExposure; kept with the hair's measure, so once per photo), the eyes' lid lines (see
  // primeEyes) and whether it is black and white (see isMonochrome).
  const balance = person && scene ? personBalance(img, person) : undefined;
  const dyeCast = job.dyeCast ?? (balance && relightCast(balance));
  const exposure = hair.exposure ??= photoExposure(img, g);
  const monochrome = !job.coloursOnly && isMonochrome(img);
  const makeup = planMakeup(o, job.intensity);
  primeEyes(img, makeupG, makeup);
  // What the photo refused of what was asked, and whether anything asked for was applied (see
  // RenderOutput.refused). A camera, a backdrop and a light always change the image.
  const refusals: string[] = [];
  let applied = !!(camera || backdrop || lighting);
  if (colours && coloursElsewhere) {
    const painted = await paintedColours(engine, { ...job, dyeCast }, cache, inFlight);
    img.data.set((await shrunk(painted.canvas, img.width, img.height)).data);
    refusals.push(...painted.refusals);
    applied ||= painted.applied;
    lap("hair");
  } else {
    if (hairColor?.hex && person) {
      const r = recolorHair(img, g, person, hairColor.hex, hair, dyeCast);
      if (!r.applied) {
        refusals.push(`${keyLabel("hairColor")} "${hairColor.label}" was not applied: ${r.reason}`);
      }
      applied ||= r.applied;
      lap("hair");
    }
    if (beardColor?.hex) {
      const r = recolorFacialHair(img, g, beardColor.hex, person, exposure, dyeCast);
      if (!r.applied) {
        refusals.push(`${keyLabel("facialHairColor")} "${beardColor.label}" was not applied: ${r.reason}`);
      }
      applied ||= r.applied;
      lap("beard");
    }
  }
  if (job.coloursOnly) {
    return {
      image: new Uint8Array(0),
      mime: "",
      notes: [],
      timings,
      photoCached,
      colours: { canvas: img, refusals, applied },
    };
  }
  notes.push(...refusals);
  // Makeup last: the hair and beard colour models read the photo's own skin, and a foundation painted
  // first made the forehead above it read as a colour apart from the skin, dyed as hair (a band).
  const { bareEyes, coveredEyes, painted } = applyMakeup(img, makeupG, makeup, g, exposure);
  const eyesNote = eyeMakeupNote(bareEyes, coveredEyes);
  if (eyesNote) notes.push(eyesNote);
  // (Nothing painted with an eye left bare: only eye layers were asked for, and both eyes were left bare.)
  if (eyesNote && !painted) refusals.push(eyesNote);
  applied ||= painted;
  lap("makeup");
  /** The person's refined matte, once a stage needed it. */
  let matte: RefinedMatte | undefined;
  if (person && scene) {
    const bg = await scene;
    matte = refineMatte(img, person, g.center, plan);
    composeRefined(img, matte, bg, liftedGains(relightGains(balance!, bg, img), exposure));
    lap("backdrop");
  } else if (person && blur > 0) {
    const behind = await blurredCopy(img, blur);
    matte = refineMatte(img, person, g.center, plan);
    composeRefined(img, matte, behind);
    lap("lens");
  }
  if (personLight && person && litFrom) {
    lightPerson(
      img,
      g,
      face.depth,
      person,
      matte ?? refineMatte(img, person, g.center, plan),
      personLight,
      litFrom,
    );
    lap("light");
  }
  if (lighting) {
    gradeLighting(img, lighting);
    lap("lighting");
  }
  if (monochrome) {
    toGrey(img);
    notes.push(MONOCHROME_NOTE);
  }
  const out = await encode(img, job.format, job.quality);
  lap("encode");
  return {
    ...out,
    notes,
    timings,
    photoCached,
    ...(!applied && refusals.length ? { refused: refusals } : {}),
  };
}
