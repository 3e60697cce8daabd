/**
 * The steps of a photo's preparation at upload (RenderJob.prepareOnly), apart from the renderer so that the
 * main thread, which runs them one after another (local-model.ts), does not load it.
 */

/**
 * A preparation's steps, in order, each run as a job of its own (each also does what the steps before it do,
 * where the cache does not hold it yet):
 * - `faces`: decode the photo and find its faces;
 * - `person`: frame it at the job's size with the job's camera, segment the person and plan the matte;
 * - `hair`: measure the hair for every shade that darkens no light hair;
 * - `darkerHair`: measure light hair for the shades that darken it (nothing more to do on other hair).
 * A look asked for while a photo is prepared waits for the step under way, not for the whole preparation
 * (1.2-1.9 s at 1080x1920 on a 2-core machine), and the steps wait while looks come one after another
 * (PREPARE_AFTER_LOOK_MS in local-model.ts).
 */
export const PREPARE_STEPS = ["faces", "person", "hair", "darkerHair"] as const;
export type PrepareStep = typeof PREPARE_STEPS[number];
