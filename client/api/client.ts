/** The app's single API client and query client. */
import { QueryClient } from "@tanstack/react-query";
import { createApiClient } from "./http.ts";
import { createTokenStore } from "./tokens.ts";

export const tokens = createTokenStore(globalThis.localStorage);

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 30_000 },
  },
});

export const api = createApiClient({
  fetch: (input, init) => globalThis.fetch(input, init),
  tokens,
  onSessionEnded: () => {
    queryClient.setQueryData(["me"], null);
  },
  withLock: (fn) =>
    globalThis.navigator?.locks ? globalThis.navigator.locks.request("styletwin-token-refresh", fn) : fn(),
});
