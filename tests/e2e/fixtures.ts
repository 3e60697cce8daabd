/**
 * Browser-test images, written to a temp dir at test time (never committed):
 * a one-person crop of a face-api demo photo (MIT, read from node_modules) and
 * a rendered landscape with no face. The images themselves come from the
 * imaging tests' fixtures, so both suites test the same photos.
 */
import { cropFace, DARK_HAIR, landscape } from "../imaging/fixtures.ts";

export async function writePortrait(dir: string): Promise<string> {
  const out = `${dir}/portrait.jpg`;
  await Deno.writeFile(out, await cropFace(DARK_HAIR));
  return out;
}

export async function writeLandscape(dir: string): Promise<string> {
  const out = `${dir}/landscape.jpg`;
  await Deno.writeFile(out, await landscape());
  return out;
}
