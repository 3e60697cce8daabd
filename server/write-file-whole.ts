/**
 * Writes a file as a whole: into a temporary file of this call's own, then renamed over the path, so a
 * reader never sees half a file, a crash never leaves a half-written one under the name, and concurrent
 * writers never share a temporary file (the last rename wins). The name is the call's, not the process's:
 * `deno test --parallel` runs test files as workers of one process (one pid), and two of them building the
 * database template at once shared `<path>.<pid>.tmp`; the second rename found it gone (ENOENT).
 * Temporary files end in `.tmp` (local disk storage sweeps stale ones by that suffix).
 */
export async function writeFileWhole(path: string, data: Uint8Array): Promise<void> {
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeFile(tmp, data);
    await Deno.rename(tmp, path);
  } catch (e) {
    // A failed write (disk full) or rename would otherwise leave the temporary file forever.
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}
