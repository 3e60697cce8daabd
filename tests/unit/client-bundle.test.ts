/**
 * The bundle budget: the JS a page loads before the app runs (its module script
 * and that script's static imports) must stay under 150 KB
 * gzipped. Builds the production client into a temporary directory.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import {
  buildClient,
  INITIAL_JS_BUDGET_BYTES,
  initialJsGzipBytes,
  PRECOMPRESS_MIN_BYTES,
} from "../../scripts/build-client.ts";

Deno.test("bundle: initial JS loaded by index.html is under 150 KB gzipped", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "styletwin-bundle-" });
  try {
    const outDir = join(tmp, "build");
    const { files } = await buildClient({ minify: true, outDir });
    // shell.html (every route but the prerendered home page) names the entry and preloads its static
    // imports; index.html loads the same entry, which imports the same chunks.
    const html = await Deno.readTextFile(join(outDir, "shell.html"));
    const entry = (page: string) => /<script[^>]+type="module"[^>]+src="\/([^"]+)"/.exec(page)?.[1];
    const scripts = [
      ...html.matchAll(/<script[^>]+type="module"[^>]+src="\/([^"]+)"/g),
      ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/([^"]+)"/g),
    ].map((m) => m[1]);
    assert.ok(scripts.length >= 1, "shell.html loads a module script");
    assert.equal(entry(await Deno.readTextFile(join(outDir, "index.html"))), entry(html));

    let gz = 0;
    for (const path of scripts) {
      gz += gzipSync(await Deno.readFile(join(outDir, path)), { level: 9 }).byteLength;
    }
    // The build's own accounting (what the bench prints) agrees with what index.html loads.
    assert.equal(gz, initialJsGzipBytes(files));
    assert.ok(
      gz <= INITIAL_JS_BUDGET_BYTES,
      `initial JS is ${gz} B gzipped, over the ${INITIAL_JS_BUDGET_BYTES} B budget: split a route or drop a dependency`,
    );
    // The studio (the biggest screen) stays out of the initial load.
    assert.ok(files.some((f) => !f.initial && f.path.includes("studio-route")), "the studio route is split");
    // So do the dialogs the landing page only opens on demand.
    for (const lazy of ["auth-dialog", "buy-credits-dialog", "dashboard-route"]) {
      assert.ok(files.some((f) => !f.initial && f.path.includes(lazy)), `${lazy} is split`);
    }
    // Every chunk asks V8 to compile its functions while it streams in (the landing page's long task
    // on a slow phone was mostly their lazy compiling); V8 reads the hint on the first line only.
    for (const path of scripts) {
      const head = new TextDecoder().decode((await Deno.readFile(join(outDir, path))).subarray(0, 64));
      assert.ok(head.startsWith("//# allFunctionsCalledOnLoad\n"), `${path} starts with the compile hint`);
    }
    // Every compressible file worth it has its brotli and gzip copies, and they are smaller.
    for (const path of scripts) {
      const raw = (await Deno.stat(join(outDir, path))).size;
      if (raw < PRECOMPRESS_MIN_BYTES) continue; // a tiny shared chunk is served as it is
      for (const ext of [".br", ".gz"]) {
        assert.ok((await Deno.stat(join(outDir, path + ext))).size < raw, `${path}${ext} is smaller`);
      }
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
