/**
 * Accessibility check for browser tests: runs axe-core in the page and fails on serious or critical
 * violations. The axe source is evaluated through the DevTools protocol rather than added as a
 * <script> tag, so a strict Content-Security-Policy (no inline scripts) does not block it.
 */
import type { Page } from "playwright-core";

const AXE_PATH = new URL("../../node_modules/axe-core/axe.min.js", import.meta.url);

let axeSource: string | undefined;

async function loadAxeSource(): Promise<string> {
  if (axeSource === undefined) axeSource = await Deno.readTextFile(AXE_PATH);
  return axeSource;
}

interface AxeNode {
  target: unknown[];
  failureSummary?: string;
  html: string;
}

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  helpUrl: string;
  nodes: AxeNode[];
}

async function injectAxe(page: Page): Promise<void> {
  const present = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe === "object");
  if (present) return;
  const source = await loadAxeSource();
  // A string expression is evaluated by the browser itself (Runtime.evaluate), which CSP does not govern.
  await page.evaluate(`${source}\n;void 0;`);
  const loaded = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe === "object");
  if (!loaded) {
    // Last resort for pages without a CSP; a CSP that forbids inline scripts makes this throw.
    await page.addScriptTag({ content: source });
  }
}

/** Runs axe on the whole page and returns its serious and critical violations. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await injectAxe(page);
  const violations = await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const axe = (globalThis as any).axe;
    const result = await axe.run(document, {
      resultTypes: ["violations"],
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    });
    return result.violations as unknown[];
  }) as AxeViolation[];
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

function describe(v: AxeViolation): string {
  const nodes = v.nodes.slice(0, 5).map((n) =>
    `    - ${JSON.stringify(n.target)}: ${n.html.slice(0, 160)}${
      n.failureSummary ? `\n      ${n.failureSummary.replaceAll("\n", "\n      ")}` : ""
    }`
  ).join("\n");
  const more = v.nodes.length > 5 ? `\n    … and ${v.nodes.length - 5} more` : "";
  return `  [${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})\n${nodes}${more}`;
}

/**
 * Fails with a readable list when axe finds any serious or critical violation on the page as it is now.
 * `context` names the screen in the failure message (e.g. "studio phone").
 */
export async function expectNoSeriousAxeViolations(page: Page, context?: string): Promise<void> {
  const violations = await seriousAxeViolations(page);
  if (violations.length === 0) return;
  const where = context ? ` on ${context}` : "";
  throw new Error(
    `axe found ${violations.length} serious/critical violation(s)${where} (${page.url()}):\n` +
      violations.map(describe).join("\n"),
  );
}
