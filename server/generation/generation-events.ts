/**
 * In-process wake-ups for a generation's status stream: the job runner calls
 * `generationChanged(id)` when a job finishes, and each open stream for that
 * id re-reads the status at once instead of at its next periodic check (which
 * still runs, for jobs finished by another process sharing the database).
 */
const waiters = new Map<string, Set<() => void>>();

export function generationChanged(id: string): void {
  const set = waiters.get(id);
  if (!set) return;
  waiters.delete(id);
  for (const wake of set) wake();
}

/** Resolves when `id` changes, after `ms`, or on `signal`'s abort, whichever comes first. */
export function waitForChange(id: string, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let set = waiters.get(id);
    if (!set) waiters.set(id, set = new Set());
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      const current = waiters.get(id);
      current?.delete(done);
      if (current?.size === 0) waiters.delete(id);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    set.add(done);
  });
}

/** Open waits, for tests: every stream must let go of its wait when it ends. */
export function pendingWaits(): number {
  let n = 0;
  for (const set of waiters.values()) n += set.size;
  return n;
}
