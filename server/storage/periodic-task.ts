/**
 * A maintenance task run at start and then every `intervalMs`. Runs never
 * overlap; the timer does not keep the process alive; stop() lets a run in
 * progress end first, and `stopped()` lets a long run end early.
 */
import { log } from "../log.ts";

export function startPeriodicTask(
  run: (stopped: () => boolean) => Promise<void>,
  opts: { intervalMs: number; name: string },
): { stop(): Promise<void> } {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  const once = async () => {
    try {
      await run(() => stopped);
    } catch (error) {
      if (!stopped) log.error(`${opts.name} failed`, { error });
    }
    if (!stopped) schedule(opts.intervalMs);
  };
  const schedule = (ms: number) => {
    const id = setTimeout(() => {
      running = once();
    }, ms);
    Deno.unrefTimer(id);
    timer = id;
  };
  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
