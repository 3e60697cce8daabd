/**
 * Prints deno.json without the packages only the build and the tests use
 * (client bundling, browsers, audits, test servers and test photos). The
 * Docker image's runtime stage installs from it, so none of them ship.
 *   deno run -A scripts/runtime-deno-json.ts > /runtime/deno.json
 */
const BUILD_AND_TEST_ONLY = [
  "esbuild",
  "tailwindcss",
  "@tailwindcss/cli",
  "playwright-core",
  "lighthouse",
  "axe-core",
  "@vladmandic/face-api",
  "s3rver",
  "react",
  "react-dom",
  "@types/react",
  "@types/react-dom",
  "@tanstack/react-router",
  "@tanstack/react-query",
  "radix-ui",
];

const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
for (const name of Object.keys(config.imports)) {
  const bare = name.replace(/\/$/, "");
  if (BUILD_AND_TEST_ONLY.includes(bare)) delete config.imports[name];
}
console.log(JSON.stringify(config, null, 2));
