/** Structured one-line logs. Never pass passwords or tokens here. */
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = {
  debug: 10,
  info: 20,
  warn: 30,
  error: 40,
};
let threshold: Level = "info";

export function setLogLevel(level: Level) {
  threshold = level;
}

function emit(level: Level, msg: string, fields?: Record<string, unknown>) {
  if (ORDER[level] < ORDER[threshold]) return;
  const out: Record<string, unknown> = {
    t: new Date().toISOString(),
    level,
    msg,
  };
  for (const [k, v] of Object.entries(fields ?? {})) {
    out[k] = v instanceof Error ? { message: v.message, stack: v.stack } : v;
  }
  const line = JSON.stringify(out);
  if (level === "error" || level === "warn") console.error(line);
  else console.log(line);
}

export const log = {
  debug: (msg: string, f?: Record<string, unknown>) => emit("debug", msg, f),
  info: (msg: string, f?: Record<string, unknown>) => emit("info", msg, f),
  warn: (msg: string, f?: Record<string, unknown>) => emit("warn", msg, f),
  error: (msg: string, f?: Record<string, unknown>) => emit("error", msg, f),
};
