/** Client bundle sizes (minified and gzipped) and what each dependency adds to the initial JS. */
import { buildClient, formatSizes } from "../scripts/build-client.ts";

const t0 = performance.now();
const result = await buildClient({ minify: true });
console.log(formatSizes(result.files));
console.log(`[client] build took ${Math.round(performance.now() - t0)} ms`);
console.log("[client] initial JS by source (minified bytes, before gzip):");
for (const [name, bytes] of result.initialBySource.slice(0, 25)) {
  console.log(`  ${(bytes / 1024).toFixed(1).padStart(7)} KiB  ${name}`);
}
