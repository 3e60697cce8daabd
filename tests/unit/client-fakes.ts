/** Small fakes for the client API layer's unit tests: tokens kept in memory, JSON responses. */
import type { TokenStore } from "../../client/api/http.ts";

/** A token store in memory; `t` exposes what it holds so a test can look. */
export function memoryTokens(access: string | null, refresh: string | null) {
  const t = { access, refresh };
  const store: TokenStore & { t: typeof t } = {
    t,
    getAccess: () => t.access,
    getRefresh: () => t.refresh,
    set(a, r) {
      t.access = a;
      t.refresh = r;
    },
    clear() {
      t.access = null;
      t.refresh = null;
    },
  };
  return store;
}

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
