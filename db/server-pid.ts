/**
 * One process per embedded (PGlite) database. PGlite is one process's
 * database: a second server, or the admin task beside a running server, on the
 * same DATA_DIR would each keep their own copy in memory and silently lose the
 * other's writes, or corrupt the files.
 *
 * The guard is an exclusive OS file lock (flock) on DATA_DIR/server.lock, held
 * by the server for its whole life. The kernel drops it when the process ends
 * in any way (clean exit, crash, kill -9), so a stale lock cannot exist.
 * DATA_DIR/server.pid beside it only names the holder in error messages.
 */
import { join } from "node:path";
import process from "node:process";

const PID_FILE = "server.pid";
const LOCK_FILE = "server.lock";

export class DataDirInUseError extends Error {
  readonly pid: number | null;
  constructor(dataDir: string, pid: number | null) {
    super(
      `Another StyleTwin server${pid ? ` (pid ${pid})` : ""} is using the embedded database in ${dataDir}. ` +
        `Stop it first, give this server its own DATA_DIR, or set DATABASE_URL so several servers share PostgreSQL.`,
    );
    this.name = "DataDirInUseError";
    this.pid = pid;
  }
}

export interface DataDirLock {
  /** Removes the pid file and releases the lock (exiting the process releases it too). */
  release(): void;
}

/**
 * Takes DATA_DIR's lock for this process, or throws DataDirInUseError when a
 * live process holds it. Never waits.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  Deno.mkdirSync(dataDir, { recursive: true });
  const file = Deno.openSync(join(dataDir, LOCK_FILE), { read: true, write: true, create: true });
  let locked = false;
  try {
    locked = file.tryLockSync(true);
  } finally {
    if (!locked) file.close();
  }
  if (!locked) throw new DataDirInUseError(dataDir, readPid(dataDir));
  writeServerPid(dataDir);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      removeServerPid(dataDir);
      file.unlockSync();
      file.close();
    },
  };
}

function writeServerPid(dataDir: string): void {
  Deno.writeTextFileSync(join(dataDir, PID_FILE), `${Deno.pid}\n`);
}

/** Removes the file only if it is still ours. */
function removeServerPid(dataDir: string): void {
  if (readPid(dataDir) !== Deno.pid) return;
  try {
    Deno.removeSync(join(dataDir, PID_FILE));
  } catch { /* already gone */ }
}

/** True while some process (this one included) holds DATA_DIR's lock. */
export function dataDirLocked(dataDir: string): boolean {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(join(dataDir, LOCK_FILE), { read: true, write: true });
  } catch {
    return false; // no lock file: no server ever ran here
  }
  try {
    if (!file.tryLockSync(true)) return true;
    file.unlockSync();
    return false;
  } finally {
    file.close();
  }
}

/**
 * The pid of a live server holding `dataDir`, or null. The lock decides (0
 * when it is held but the pid file is gone). A pid file whose process is alive
 * also counts, conservatively, unless it names this process or its parent: in a
 * fresh container the stale pid of a previous one can be reused by this very
 * process or `deno task`.
 */
export function runningServerPid(dataDir: string): number | null {
  const pid = readPid(dataDir);
  if (dataDirLocked(dataDir)) return pid ?? 0;
  if (pid === null || pid === Deno.pid || pid === Deno.ppid) return null;
  return isAlive(pid) ? pid : null;
}

function readPid(dataDir: string): number | null {
  try {
    const pid = Number.parseInt(Deno.readTextFileSync(join(dataDir, PID_FILE)).trim(), 10);
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
