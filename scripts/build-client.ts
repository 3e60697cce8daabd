/**
 * Builds the React client into static/build/:
 *   index.html (the landing page rendered at build time, hydrated by client/main.tsx),
 *   shell.html (the same head, an empty root: every other client route),
 *   assets/[name]-[hash].js|css (esm, code-split), copies of static/public/*,
 *   favicon.ico, and a brotli (.br) and gzip (.gz) copy of every compressible file.
 *
 * Library: `await buildClient({ minify, outDir })`. CLI: `deno run -A scripts/build-client.ts
 * [--dev] [--quiet]` (prints a size table; initial JS is what index.html loads).
 */
import * as esbuild from "esbuild";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import sharp from "sharp";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLIENT = join(ROOT, "client");

export interface BuiltFile {
  path: string;
  bytes: number;
  gzipBytes: number;
  /** Loaded by the pages (the entry chunk, its static imports, the CSS). */
  initial?: boolean;
}

export interface BuildResult {
  outDir: string;
  files: BuiltFile[];
  /** Minified bytes each npm package (or client folder) puts into the initial JS, largest first. */
  initialBySource: [string, number][];
}

/** "react-dom" for .../node_modules/.deno/react-dom@19/node_modules/react-dom/..., else the folder. */
function sourceName(input: string): string {
  const pkg = /node_modules\/(?:\.deno\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/?]+)/.exec(input);
  if (pkg) return pkg[1];
  return input.replace(/^radix-barrel:.*/, "radix-ui").split("/").slice(0, 3).join("/");
}

async function runTailwind(input: string, output: string, minify: boolean) {
  const args = [
    "run",
    "-A",
    "npm:@tailwindcss/cli@4.3.3",
    "-i",
    input,
    "-o",
    output,
  ];
  if (minify) args.push("--minify");
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `tailwindcss failed:\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
}

/**
 * `radix-ui` is one barrel re-exporting every primitive. Shared by the landing page (toast) and the
 * lazy screens (slider, tabs, radio group...), it drags every primitive any screen uses into the
 * initial load. Each importer gets its own barrel exporting only the names it imports, so each
 * primitive ships with the screens that use it.
 */
const radixPerImporter: esbuild.Plugin = {
  name: "radix-per-importer",
  setup(build) {
    build.onResolve({ filter: /^radix-ui$/ }, async (args) => {
      if (args.pluginData?.real) return undefined;
      const real = await build.resolve("radix-ui", {
        resolveDir: args.resolveDir,
        kind: args.kind,
        pluginData: { real: true },
      });
      if (real.errors.length) return { errors: real.errors };
      return {
        path: `${real.path}?from=${args.importer}`,
        namespace: "radix-barrel",
        pluginData: { barrel: real.path, importer: args.importer },
      };
    });
    build.onLoad({ filter: /.*/, namespace: "radix-barrel" }, async (args) => {
      const { barrel, importer } = args.pluginData as { barrel: string; importer: string };
      const packages = new Map(
        [...(await Deno.readTextFile(barrel)).matchAll(/import \* as (\w+) from "([^"]+)"/g)].map((
          m,
        ) => [m[1], m[2]]),
      );
      const source = await Deno.readTextFile(importer);
      const names = [...source.matchAll(/import\s*\{([^}]*)\}\s*from\s*"radix-ui"/g)]
        .flatMap((m) => m[1].split(",").map((n) => n.trim().split(/\s+/)[0]).filter(Boolean));
      const lines = names.map((name) => {
        const pkg = packages.get(name);
        if (!pkg) throw new Error(`${importer}: radix-ui has no export ${name}`);
        return `export * as ${name} from "${pkg}";`;
      });
      return { contents: lines.join("\n"), resolveDir: dirname(barrel), loader: "js" };
    });
  },
};

async function hashOf(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return Array.from(new Uint8Array(digest).slice(0, 5))
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("").toUpperCase();
}

async function copyDir(from: string, to: string) {
  try {
    for await (const entry of Deno.readDir(from)) {
      const src = join(from, entry.name);
      const dst = join(to, entry.name);
      if (entry.isDirectory) {
        await Deno.mkdir(dst, { recursive: true });
        await copyDir(src, dst);
      } else if (entry.isFile) {
        await Deno.copyFile(src, dst);
      }
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

/** The extensions worth compressing; images and fonts are compressed already. */
export const COMPRESSIBLE = /\.(js|css|html|svg|txt|json|map)$/;
/** Below this a compressed copy saves less than its headers cost. */
export const PRECOMPRESS_MIN_BYTES = 256;

async function precompress(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      await precompress(path);
      continue;
    }
    if (!entry.isFile || !COMPRESSIBLE.test(entry.name)) continue;
    const bytes = await Deno.readFile(path);
    if (bytes.byteLength < PRECOMPRESS_MIN_BYTES) continue;
    await Deno.writeFile(
      `${path}.br`,
      brotliCompressSync(bytes, {
        params: {
          [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
          [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
        },
      }),
    );
    await Deno.writeFile(`${path}.gz`, gzipSync(bytes, { level: 9 }));
  }
}

/**
 * The landing page's markup (client/prerender.tsx), bundled for the server side of the router and
 * rendered in a child process: the client's modules keep timers and listeners alive, and a fresh
 * process renders the source as it is now (a module cache would keep an older build's).
 */
async function prerenderLanding(outDir: string): Promise<string> {
  const dir = join(outDir, ".prerender");
  try {
    await esbuild.build({
      entryPoints: { prerender: join(CLIENT, "prerender.tsx") },
      bundle: true,
      format: "esm",
      platform: "browser",
      // "worker" picks the router's server build (it renders the location it is given).
      conditions: ["worker"],
      target: "es2022",
      outdir: dir,
      jsx: "automatic",
      logLevel: "warning",
      absWorkingDir: ROOT,
      define: { "process.env.NODE_ENV": JSON.stringify("production") },
    });
    const runner = join(dir, "run.mjs");
    const markup = join(dir, "landing.html");
    await Deno.writeTextFile(
      runner,
      `import { prerenderLanding } from "./prerender.js";\n` +
        `Deno.writeTextFileSync(${JSON.stringify(markup)}, await prerenderLanding());\nDeno.exit(0);\n`,
    );
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", `--allow-write=${dir}`, "--no-config", "--no-lock", runner],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!run.success) {
      throw new Error(`prerendering the landing page failed:\n${new TextDecoder().decode(run.stderr)}`);
    }
    const html = await Deno.readTextFile(markup);
    // The page's policy forbids inline scripts and style attributes (server/http/content-security-policy.ts).
    if (/<script|\sstyle="/.test(html)) {
      throw new Error("the prerendered landing page has an inline script or style");
    }
    return html;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function icoFromSvg(svg: Uint8Array): Promise<Uint8Array> {
  const png = await sharp(svg, { density: 300 }).resize(32, 32).png().toBuffer();
  const head = new DataView(new ArrayBuffer(22));
  head.setUint16(2, 1, true); // type: icon
  head.setUint16(4, 1, true); // one image
  head.setUint8(6, 32); // width
  head.setUint8(7, 32); // height
  head.setUint16(10, 1, true); // colour planes
  head.setUint16(12, 32, true); // bits per pixel
  head.setUint32(14, png.byteLength, true);
  head.setUint32(18, 22, true); // the PNG starts right after this header
  const ico = new Uint8Array(22 + png.byteLength);
  ico.set(new Uint8Array(head.buffer), 0);
  ico.set(png, 22);
  return ico;
}

export async function buildClient(
  opts: { minify?: boolean; outDir?: string } = {},
): Promise<BuildResult> {
  const minify = opts.minify ?? true;
  const finalDir = opts.outDir ?? join(ROOT, "static", "build");
  // Build beside the live directory and swap it in at the end, so a running server (deno task dev,
  // or a test's server while another test file rebuilds) never sees a half-written client.
  const outDir = `${finalDir}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  const assetsDir = join(outDir, "assets");
  await Deno.mkdir(assetsDir, { recursive: true });

  // 1. CSS (Tailwind v4 scans client/ through the @source lines in styles.css).
  const tmpCss = join(outDir, ".styles.css");
  await runTailwind(join(CLIENT, "styles.css"), tmpCss, minify);
  const css = await Deno.readFile(tmpCss);
  await Deno.remove(tmpCss);
  const cssName = `styles-${await hashOf(css)}.css`;
  await Deno.writeFile(join(assetsDir, cssName), css);

  // 2. JS, code-split ESM.
  let result: esbuild.BuildResult<{ metafile: true }>;
  let landing: string;
  try {
    result = await esbuild.build({
      entryPoints: { app: join(CLIENT, "main.tsx") },
      bundle: true,
      splitting: true,
      format: "esm",
      target: ["es2022", "chrome111", "safari16", "firefox115"],
      outdir: assetsDir,
      entryNames: "[name]-[hash]",
      chunkNames: "[name]-[hash]",
      assetNames: "[name]-[hash]",
      jsx: "automatic",
      minify,
      sourcemap: minify ? false : "linked",
      metafile: true,
      legalComments: "none",
      // Before any chunk's code: zod must not probe `new Function` under the strict CSP (csp-setup.ts).
      // First line: V8's explicit compile hint (Chrome 136+; a comment elsewhere): compile every
      // function of the chunk while it streams in, off the main thread, instead of on first call on
      // it. React's and the router's module bodies are called at load; compiled lazily they were most
      // of the landing page's one long task (decision 016).
      banner: {
        js:
          "//# allFunctionsCalledOnLoad\nglobalThis.__zod_globalConfig??={};globalThis.__zod_globalConfig.jitless=true;",
      },
      logLevel: "warning",
      absWorkingDir: ROOT,
      plugins: [radixPerImporter],
      define: {
        "process.env.NODE_ENV": JSON.stringify(
          minify ? "production" : "development",
        ),
      },
    });
    landing = await prerenderLanding(outDir);
  } finally {
    await esbuild.stop();
  }

  const outputs = result.metafile.outputs;
  const entryOut = Object.entries(outputs).find(([, o]) => o.entryPoint?.endsWith("client/main.tsx"));
  if (!entryOut) throw new Error("esbuild produced no entry chunk");
  // Initial JS: the entry plus everything it imports statically.
  const initial = new Set<string>();
  const visit = (p: string) => {
    if (initial.has(p)) return;
    initial.add(p);
    for (const imp of outputs[p]?.imports ?? []) {
      if (imp.kind === "import-statement") visit(imp.path);
    }
  };
  visit(entryOut[0]);
  const entryName = relative(assetsDir, join(ROOT, entryOut[0]));
  const preloads = [...initial]
    .filter((p) => p !== entryOut[0] && p.endsWith(".js"))
    .map((p) => `    <link rel="modulepreload" href="/assets/${relative(assetsDir, join(ROOT, p))}" />`).join(
      "\n",
    );

  // 3. index.html (the landing page's markup in the root) and shell.html (an empty root). React
  // hoists the preloads it wants (the logo) to the front of the markup: they belong in the head.
  // Only the shell preloads the entry's chunks: it draws nothing until they have run. The landing
  // page is painted without them, and preloading them there makes them compete with the stylesheet
  // for a slow phone's bandwidth (Lighthouse mobile: FCP 2.1-2.2 s with the preloads, 1.5-1.8 s
  // without, same load).
  const hoisted = /^(?:<link [^>]*\/>)*/.exec(landing)![0];
  const template = await Deno.readTextFile(join(CLIENT, "index.html"));
  const page = (head: string, body: string) =>
    template.replace(
      "<!-- assets -->",
      [
        `<link rel="stylesheet" href="/assets/${cssName}" />`,
        `    <script type="module" src="/assets/${entryName}"></script>`,
        head,
      ].filter(Boolean).join("\n"),
    ).replace(/<div id="root"><\/div>/, () => `<div id="root">${body}</div>`);
  await Deno.writeTextFile(
    join(outDir, "index.html"),
    page(hoisted.replaceAll("<link ", "    <link "), landing.slice(hoisted.length)),
  );
  await Deno.writeTextFile(join(outDir, "shell.html"), page(preloads, ""));

  // 4. Fixed public assets (favicon.svg, robots.txt...), and favicon.ico for the browsers and
  // crawlers that ask for it whatever the page says: one 32 px PNG in an ICO container.
  await copyDir(join(ROOT, "static", "public"), outDir);
  const svg = await Deno.readFile(join(ROOT, "static", "public", "favicon.svg")).catch(() => null);
  if (svg) await Deno.writeFile(join(outDir, "favicon.ico"), await icoFromSvg(svg));

  // 5. Precompressed copies (file.br, file.gz) served as they are, so nothing is compressed per request.
  await precompress(outDir);

  const files: BuiltFile[] = [];
  const cssPath = join(assetsDir, cssName);
  for (const p of [...Object.keys(outputs).map((o) => join(ROOT, o)), cssPath]) {
    if (p.endsWith(".map")) continue;
    const bytes = await Deno.readFile(p);
    files.push({
      path: relative(outDir, p),
      bytes: bytes.byteLength,
      gzipBytes: gzipSync(bytes, { level: 9 }).byteLength,
      initial: p === cssPath || initial.has(relative(ROOT, p)),
    });
  }
  files.sort((a, b) => b.bytes - a.bytes);
  const bySource = new Map<string, number>();
  for (const out of initial) {
    for (const [input, { bytesInOutput }] of Object.entries(outputs[out]?.inputs ?? {})) {
      const name = sourceName(input);
      bySource.set(name, (bySource.get(name) ?? 0) + bytesInOutput);
    }
  }
  const initialBySource = [...bySource].sort((a, b) => b[1] - a[1]);

  const retired = `${finalDir}.old-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.rename(finalDir, retired).catch(() => {});
  await Deno.rename(outDir, finalDir);
  await Deno.remove(retired, { recursive: true }).catch(() => {});
  return { outDir: finalDir, files, initialBySource };
}

/**
 * The budget for the JS index.html loads, gzipped: 150 KB (decimal, 150,000
 * bytes, the stricter reading of "150 KB"). tests/unit/client-bundle.test.ts
 * fails the build when it is exceeded.
 */
export const INITIAL_JS_BUDGET_BYTES = 150_000;

/** Gzipped bytes of the scripts index.html loads (the entry and its static imports). */
export function initialJsGzipBytes(files: BuiltFile[]): number {
  return files.filter((f) => f.initial && f.path.endsWith(".js")).reduce((s, f) => s + f.gzipBytes, 0);
}

function kb(n: number) {
  return `${(n / 1024).toFixed(1)} KiB`;
}

export function formatSizes(files: BuiltFile[]): string {
  const lines = files.map((f) =>
    `${f.initial ? "*" : " "} ${f.path.padEnd(44)} ${kb(f.bytes).padStart(11)} ${
      kb(f.gzipBytes).padStart(11)
    } gz`
  );
  const initialGz = initialJsGzipBytes(files);
  const allGz = files.filter((f) => f.path.endsWith(".js"))
    .reduce((s, f) => s + f.gzipBytes, 0);
  lines.push(
    `initial JS (gzip): ${
      kb(initialGz)
    } = ${initialGz} B (budget ${INITIAL_JS_BUDGET_BYTES} B)   all JS (gzip): ${
      kb(allGz)
    }   (* = loaded by index.html)`,
  );
  return lines.join("\n");
}

if (import.meta.main) {
  const dev = Deno.args.includes("--dev");
  const started = performance.now();
  const { outDir, files } = await buildClient({ minify: !dev });
  if (!Deno.args.includes("--quiet")) {
    console.log(formatSizes(files));
    console.log(
      `built ${relative(ROOT, outDir)} in ${Math.round(performance.now() - started)} ms`,
    );
  }
}
