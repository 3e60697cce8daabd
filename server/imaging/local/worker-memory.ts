/** Memory helpers shared by the local model's worker threads (model workers and the face-models worker). */

/** A full GC, when the process runs with --expose-gc (SERVER_V8_FLAGS); otherwise nothing. */
export const collectGarbage: () => void = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** This thread's V8 heap and the memory V8 tracks outside it, after a full GC when one can be asked for. */
export function heapFigures(): { heapUsed: number; heapTotal: number; external: number } {
  collectGarbage();
  const { heapUsed, heapTotal, external } = Deno.memoryUsage();
  return { heapUsed, heapTotal, external };
}
