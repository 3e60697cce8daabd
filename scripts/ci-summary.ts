/**
 * Reads deno test's JUnit report and prints the closing line CI reads,
 * `N passed, N failed` (tests and their steps), and fails when a required
 * group of tests did not run: `--require "[postgres]" --require "[browser]"`
 * means at least one test whose name starts with that tag passed and none
 * with it was skipped.
 *
 * Usage: deno run -A scripts/ci-summary.ts test-results/junit.xml --require "[postgres]"
 */
const [path, ...rest] = Deno.args;
const required: string[] = [];
for (let i = 0; i < rest.length; i++) if (rest[i] === "--require") required.push(rest[++i]);

const decode = (s: string) =>
  s.replaceAll("&gt;", ">").replaceAll("&lt;", "<").replaceAll("&quot;", '"').replaceAll("&apos;", "'")
    .replaceAll("&amp;", "&");

const xml = await Deno.readTextFile(path);
const cases = [...xml.matchAll(/<testcase name="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => ({
  name: decode(m[1]),
  failed: /<failure|<error/.test(m[3] ?? ""),
  skipped: /<skipped/.test(m[3] ?? ""),
}));

const passed = cases.filter((c) => !c.failed && !c.skipped).length;
const failed = cases.filter((c) => c.failed).length;
const skipped = cases.filter((c) => c.skipped).length;

let missing = 0;
for (const tag of required) {
  const group = cases.filter((c) => c.name.startsWith(tag));
  const ran = group.filter((c) => !c.failed && !c.skipped).length;
  const skippedInGroup = group.filter((c) => c.skipped).length;
  if (ran === 0 || skippedInGroup > 0) {
    console.error(`CI: required tests ${tag} did not run (passed ${ran}, skipped ${skippedInGroup})`);
    missing++;
  } else {
    console.error(`CI: ${tag} tests ran: ${ran} passed`);
  }
}

console.log(`${passed} passed, ${failed + missing} failed${skipped ? `, ${skipped} skipped` : ""}`);
Deno.exit(failed + missing > 0 || cases.length === 0 ? 1 : 0);
