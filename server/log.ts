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
    out[k] = v instanceof Error ? describeError(v) : v;
  }
  const line = JSON.stringify(out);
  if (level === "error" || level === "warn") console.error(line);
  else console.log(line);
}

// drizzle's DrizzleQueryError puts every bound value in its message ("Failed query: <sql>
// \nparams: <values>"), and so in its stack: password hashes, emails, token hashes.
const FAILED_QUERY = "Failed query:";

/**
 * An error as loggable JSON without query parameters: for a failed query only the SQL
 * text and the driver's own message (the cause) are kept. Causes are followed a few levels.
 */
export function describeError(err: Error, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { name: err.name, message: err.message, stack: err.stack };
  if (err.message.startsWith(FAILED_QUERY)) {
    const query = (err as { query?: unknown }).query;
    out.message = typeof query === "string" ? `${FAILED_QUERY} ${query}` : FAILED_QUERY;
    // The stack repeats the message; keep only its frames.
    out.stack = err.stack?.split("\n").filter((line) => /^\s+at /.test(line)).join("\n");
  }
  const cause = err.cause;
  if (cause instanceof Error && depth < 3) out.cause = describeError(cause, depth + 1);
  else if (cause !== undefined && depth < 3) out.cause = String(cause);
  return out;
}

export const log = {
  debug: (msg: string, f?: Record<string, unknown>) => emit("debug", msg, f),
  info: (msg: string, f?: Record<string, unknown>) => emit("info", msg, f),
  warn: (msg: string, f?: Record<string, unknown>) => emit("warn", msg, f),
  error: (msg: string, f?: Record<string, unknown>) => emit("error", msg, f),
};
