/**
 * DATA_DIR/server.pid marks an embedded (PGlite) database as in use. PGlite is
 * one process's database: a second process opening the same folder (the admin
 * task beside a running server) can corrupt it. main.ts writes the file before
 * it opens the database and removes it on shutdown; other tools refuse to open
 * the folder while the process it names is alive.
 */
import { join } from "node:path";
import process from "node:process";

const FILE = "server.pid";

export function writeServerPid(dataDir: string): void {
  Deno.mkdirSync(dataDir, { recursive: true });
  Deno.writeTextFileSync(join(dataDir, FILE), `${Deno.pid}\n`);
}

/** Removes the file only if it is still ours (a newer server may have replaced it). */
export function removeServerPid(dataDir: string): void {
  if (readPid(dataDir) !== Deno.pid) return;
  try {
    Deno.removeSync(join(dataDir, FILE));
  } catch { /* already gone */ }
}

/**
 * The pid of a live server holding `dataDir`, or null. A stale file (the server crashed)
 * names a dead pid and is ignored; so is our own pid or our parent's: in a fresh container
 * the stale pid of a previous one can be reused by this very process or `deno task`.
 */
export function runningServerPid(dataDir: string): number | null {
  const pid = readPid(dataDir);
  if (pid === null || pid === Deno.pid || pid === Deno.ppid) return null;
  return isAlive(pid) ? pid : null;
}

function readPid(dataDir: string): number | null {
  try {
    const pid = Number.parseInt(Deno.readTextFileSync(join(dataDir, FILE)).trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: existence check, nothing is sent
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to another user, which still holds the folder.
    return (e as { code?: string }).code === "EPERM";
  }
}
