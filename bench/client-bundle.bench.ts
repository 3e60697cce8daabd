/** Client bundle sizes (minified and gzipped); the initial JS budget is 200 KiB gzipped. */
import { buildClient, formatSizes } from "../scripts/build-client.ts";

const t0 = performance.now();
const result = await buildClient({ minify: true });
console.log(formatSizes(result.files));
console.log(`[client] build took ${Math.round(performance.now() - t0)} ms`);
