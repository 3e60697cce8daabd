/**
 * Build-time rendering of the landing page (scripts/build-client.ts bundles this for the server side
 * of the router and calls it): the markup goes into index.html, so the headline and the upload card
 * paint before any script has loaded, and client/main.tsx hydrates it. Rendered as a first visit with
 * no session; what depends on the browser (the stored session, a generation still running) renders
 * its neutral state until hydration is over (client/lib/use-hydrated.ts).
 */
import { createMemoryHistory } from "@tanstack/react-router";
import { type ReactNode, Suspense } from "react";
import { renderToString } from "react-dom/server";
import { App, router } from "./app.tsx";

function SuspenseLikeTheBrowser({ children }: { children: ReactNode }) {
  return <Suspense fallback={null}>{children}</Suspense>;
}

export async function prerenderLanding(): Promise<string> {
  router.update({
    ...router.options,
    // On the server the router has no browser history: it renders the location it is given.
    history: createMemoryHistory({ initialEntries: ["/"] }),
    // In the browser the router puts its matches in a Suspense boundary, on the server it does not:
    // the same boundary here, so the markup has the boundary hydration expects.
    InnerWrap: SuspenseLikeTheBrowser,
  });
  await router.load();
  return renderToString(<App />);
}
