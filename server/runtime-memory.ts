/**
 * Process-wide memory settings of the server (see
 * docs/decisions/017-server-speed-and-memory.md for the figures).
 *
 * V8 reads its flags only when the process starts, so SERVER_V8_FLAGS are
 * passed on the command line by `deno task start`/`dev` and the Dockerfile
 * (tests/unit/runtime-memory.test.ts holds them to this list) and by the
 * memory and startup benches. glibc's malloc can be tuned at run time, which
 * main.ts does first thing.
 */

/**
 * - `--max-semi-space-size=1`: V8 sizes each isolate's young generation for
 *   throughput (up to 16 MB per semi-space); the model workers allocate large
 *   typed arrays, not many small objects, and each worker's heap stayed at
 *   ~100 MB reserved after a queue against ~40 MB with 1 MB semi-spaces.
 * - `--expose-gc`: a model worker collects once after each job, so the next
 *   job does not start on top of the last one's dead buffers (V8 would wait
 *   for ~64 MB of them per worker).
 */
export const SERVER_V8_FLAGS = ["--max-semi-space-size=1", "--expose-gc"];

/** mallopt(3) parameters (glibc's malloc.h). */
const M_MMAP_THRESHOLD = -3;
const M_ARENA_MAX = -8;

/**
 * glibc malloc, tuned for a process whose threads (libvips', the workers')
 * allocate and free many multi-megabyte buffers:
 * - allocations from 128 KiB up are always mmap'd, so freeing one returns it
 *   to the system. By default glibc raises that threshold to the largest
 *   block freed so far (up to 32 MB), after which every photo-sized buffer
 *   comes from the heap and its pages stay with the process;
 * - at most two arenas: each thread that meets contention otherwise gets one
 *   (up to 8 per core), each holding its own free memory.
 * Returns false where this is not glibc (the settings are then the system's).
 */
export function tuneMalloc(): boolean {
  if (Deno.build.os !== "linux") return false;
  let libc: Deno.DynamicLibrary<{ mallopt: { parameters: ["i32", "i32"]; result: "i32" } }>;
  try {
    libc = Deno.dlopen("libc.so.6", { mallopt: { parameters: ["i32", "i32"], result: "i32" } });
  } catch {
    return false; // musl, or FFI not permitted
  }
  try {
    return libc.symbols.mallopt(M_MMAP_THRESHOLD, 128 * 1024) === 1 &&
      libc.symbols.mallopt(M_ARENA_MAX, 2) === 1;
  } finally {
    libc.close();
  }
}
