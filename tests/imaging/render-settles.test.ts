/**
 * A render that fails (here: no face) must not leave libvips work running: the
 * worker pool may terminate a worker as soon as it has answered, and a libvips
 * thread still reading that worker's buffers then crashes the whole process
 * (seen once as a segfault in CI). Run in a child process, where sharp's
 * task counters are this render's alone.
 */
import assert from "node:assert/strict";

const here = (path: string) => new URL(path, import.meta.url).href;

Deno.test("a failed render leaves no libvips work running", async () => {
  const script = `
    import sharp from "sharp";
    import { render } from "${here("../../server/imaging/local/render.ts")}";
    // A large noisy photo: its speculative cover resize is still running when the face search ends.
    const w = 1536, h = 2048;
    const noise = new Uint8Array(w * h * 3).map((_, i) => (i * 2654435761) >>> 24);
    const photo = await sharp(noise, { raw: { width: w, height: h, channels: 3 } }).jpeg().toBuffer();
    const noFaces = { detect: () => Promise.resolve([]), tensorCount: () => 0 };
    const job = {
      photo: new Uint8Array(photo), studioType: "makeup", options: {}, intensity: {}, instructions: null,
      references: 0, width: 1080, height: 1920, format: "jpeg",
    };
    let message = "";
    try { await render(noFaces, job); } catch (err) { message = err.message; }
    console.log(JSON.stringify({ message, ...sharp.counters() }));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--config", "deno.json", "--ext=ts", script],
    cwd: new URL("../../", import.meta.url),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const result = JSON.parse(text.split("\n").at(-1)!);
  assert.equal(result.message, "No face found: use a front-facing photo with one person");
  assert.equal(result.queue, 0, "libvips tasks queued after the render answered");
  assert.equal(result.process, 0, "libvips tasks running after the render answered");
});
