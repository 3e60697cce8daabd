/**
 * Starts the real product (`main.ts`) as a subprocess on a free port with a
 * temporary DATA_DIR (PGlite, local disk, the local image model), the way a
 * user's `deno task start` runs it. Used by the start-up and browser tests.
 */
import { fileURLToPath } from "node:url";
import { buildClientOnce } from "./client-build.ts";
import { ensureTemplateBuilt } from "./db-template.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface LiveServer {
  url: string;
  dataDir: string;
  /** The server process (benches read its memory from /proc). */
  pid: number;
  /** Everything the server printed so far. */
  output(): string;
  /** Stops the server (SIGTERM, then SIGKILL); keeps DATA_DIR when `keepData`. */
  close(opts?: { keepData?: boolean }): Promise<void>;
}

let clientBuilt: Promise<void> | undefined;

/** The built client, rebuilt only when its sources changed since the last build (see client-build.ts). */
export function ensureClientBuilt(): Promise<void> {
  clientBuilt ??= buildClientOnce();
  return clientBuilt;
}

export async function startLiveServer(
  opts: { env?: Record<string, string>; dataDir?: string; buildClient?: boolean } = {},
): Promise<LiveServer> {
  if (opts.buildClient !== false) await ensureClientBuilt();
  // A fresh DATA_DIR starts from the migrated template, as under `deno task start` (2.1 s to listening
  // here against 6.5 s for initdb and every migration).
  if (!opts.env?.DATABASE_URL) await ensureTemplateBuilt();
  const dataDir = opts.dataDir ?? await Deno.makeTempDir({ prefix: "styletwin-live-" });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: ROOT,
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      JOB_WORKERS: "1",
      ...opts.env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();

  let output = "";
  const decoder = new TextDecoder();
  let resolvePort: (port: number) => void;
  const portPromise = new Promise<number>((r) => (resolvePort = r));
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      output += decoder.decode(chunk, { stream: true });
      const m = /"msg":"listening","port":(\d+)/.exec(output);
      if (m) resolvePort(Number(m[1]));
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);

  const port = await Promise.race([
    portPromise,
    child.status.then((s) => {
      throw new Error(`server exited with ${s.code} before listening:\n${output}`);
    }),
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`server did not start in 60 s:\n${output}`)), 60_000)
    ),
  ]);

  let closed = false;
  return {
    url: `http://127.0.0.1:${port}`,
    dataDir,
    pid: child.pid,
    output: () => output,
    close: async ({ keepData = false } = {}) => {
      if (closed) return;
      closed = true;
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* gone */ }
      }, 10_000);
      await child.status;
      clearTimeout(timer);
      await pumps;
      if (!keepData && !opts.dataDir) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}
