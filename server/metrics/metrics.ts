/**
 * Process-local metrics in the Prometheus text format (version 0.0.4), served by
 * GET /api/metrics. Other areas record their events through the small functions
 * below; each process exposes its own counters (Prometheus sums across targets).
 * Labels are bounded sets (route patterns, not paths), so memory stays bounded.
 */

type Labels = Record<string, string>;

/** Keys of label sets used again and again (each request's), computed once. */
const labelKeys = new WeakMap<Labels, string>();

function labelKey(labels: Labels): string {
  let key = labelKeys.get(labels);
  if (key === undefined) {
    key = Object.keys(labels).sort().map((k) => `${k}="${escapeLabel(labels[k])}"`).join(",");
    labelKeys.set(labels, key);
  }
  return key;
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

class Counter {
  readonly values = new Map<string, number>();
  constructor(readonly name: string, readonly help: string) {}
  inc(labels: Labels = {}, by = 1) {
    const key = labelKey(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }
  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    if (this.values.size === 0) lines.push(`${this.name} 0`);
    for (const [key, v] of this.values) lines.push(`${this.name}${key ? `{${key}}` : ""} ${v}`);
    return lines;
  }
}

class Histogram {
  readonly series = new Map<string, { buckets: number[]; sum: number; count: number }>();
  constructor(readonly name: string, readonly help: string, readonly bounds: number[]) {}
  observe(labels: Labels, value: number) {
    const key = labelKey(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    this.bounds.forEach((b, i) => {
      if (value <= b) s.buckets[i]++;
    });
    s.sum += value;
    s.count++;
  }
  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [key, s] of this.series) {
      const sep = key ? "," : "";
      this.bounds.forEach((b, i) => lines.push(`${this.name}_bucket{${key}${sep}le="${b}"} ${s.buckets[i]}`));
      lines.push(`${this.name}_bucket{${key}${sep}le="+Inf"} ${s.count}`);
      lines.push(`${this.name}_sum${key ? `{${key}}` : ""} ${s.sum}`);
      lines.push(`${this.name}_count${key ? `{${key}}` : ""} ${s.count}`);
    }
    return lines;
  }
}

const requests = new Counter(
  "styletwin_http_requests_total",
  "HTTP requests by method, route pattern and status.",
);
const requestSeconds = new Histogram(
  "styletwin_http_request_duration_seconds",
  "HTTP request latency by method, route pattern and status.",
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
);
const jobsFinished = new Counter(
  "styletwin_jobs_finished_total",
  "Generation jobs finished, by final state.",
);
const jobSeconds = new Histogram(
  "styletwin_job_duration_seconds",
  "Generation job duration from claim to completion or failure.",
  [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
);
const creditsDebited = new Counter("styletwin_credits_debited_total", "Credits charged for generations.");
const creditsRefunded = new Counter(
  "styletwin_credits_refunded_total",
  "Credits refunded for failed generations.",
);
const modelErrors = new Counter(
  "styletwin_model_errors_total",
  "Image model call failures, by model and kind.",
);

/** Each request's label set, one object per method, route and status (bounded like the series). */
const requestLabels = new Map<string, Labels>();

/** Called once per request by the access-log middleware. */
export function recordRequest(method: string, route: string, status: number, seconds: number): void {
  const id = `${method} ${status} ${route}`;
  let labels = requestLabels.get(id);
  if (!labels) requestLabels.set(id, labels = { method, route, status: String(status) });
  requests.inc(labels);
  requestSeconds.observe(labels, seconds);
}

/** A generation job reached a final state after `seconds` of work. */
export function recordJobFinished(state: "completed" | "failed", seconds: number): void {
  jobsFinished.inc({ state });
  jobSeconds.observe({ state }, seconds);
}

/** Credits moved for a generation: `debited` when charged, `refunded` when given back. */
export function recordCredits(kind: "debited" | "refunded", credits: number): void {
  (kind === "debited" ? creditsDebited : creditsRefunded).inc({}, credits);
}

/** An image model call failed (`kind`: timeout, refused, error, ...). */
export function recordModelError(model: string, kind: string): void {
  modelErrors.inc({ model, kind });
}

/** The exposition text; `jobsByState` is read from the database at scrape time. */
export function renderMetrics(jobsByState: Record<string, number>): string {
  const jobs = [
    "# HELP styletwin_jobs Generation jobs in the database, by state.",
    "# TYPE styletwin_jobs gauge",
    ...["queued", "processing", "completed", "failed"].map((state) =>
      `styletwin_jobs{state="${state}"} ${jobsByState[state] ?? 0}`
    ),
  ];
  return [
    ...requests.render(),
    ...requestSeconds.render(),
    ...jobs,
    ...jobsFinished.render(),
    ...jobSeconds.render(),
    ...creditsDebited.render(),
    ...creditsRefunded.render(),
    ...modelErrors.render(),
  ].join("\n") + "\n";
}
