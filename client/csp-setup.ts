/**
 * Runs first (client/main.tsx imports it before anything else) so the app works under the
 * server's strict Content-Security-Policy (server/http/content-security-policy.ts):
 *
 * - Radix dialogs lock page scrolling with an injected <style> element, which `style-src`
 *   allows only with the page's nonce. The server hands the nonce of this page load over in
 *   the `csp-nonce` cookie; the style injector (get-nonce) reads `__webpack_nonce__` when it
 *   injects, long after this ran.
 * - zod would compile parsers with `new Function`, and under `script-src 'self'` even its
 *   probe for that is reported as a violation. Schemas are built while chunks load, before
 *   any code of ours runs, so the build sets zod's `jitless` in a banner at the top of every
 *   chunk (scripts/build-client.ts); this repeats it for anything built without that banner.
 */
const g = globalThis as { __webpack_nonce__?: string; __zod_globalConfig?: { jitless?: boolean } };
g.__zod_globalConfig ??= {};
g.__zod_globalConfig.jitless = true;

const nonce = /(?:^|;\s*)csp-nonce=([A-Za-z0-9_-]{16,64})(?:;|$)/.exec(document.cookie)?.[1];
if (nonce) g.__webpack_nonce__ = nonce;
