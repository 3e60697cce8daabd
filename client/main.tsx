/** Client entry: mount the app, or hydrate the landing page the build rendered into index.html. */
import "./csp-setup.ts"; // first: zod and the style nonce under the Content-Security-Policy
import { startTransition } from "react";
import { createRoot, hydrateRoot } from "react-dom/client";
import { App, router } from "./app.tsx";

const root = document.getElementById("root")!;
// The server sends the prerendered landing page for "/" only (server/http/static-client.ts);
// every other path gets an empty root and is rendered from scratch.
if (root.firstElementChild && location.pathname === "/") {
  // The router resolves "/" before hydrating, so the first render is the markup already shown.
  await router.load();
  // The page is already on screen: hydrate as a transition, which React splits into short tasks
  // (input stays responsive, no long main-thread task on a slow phone).
  startTransition(() => {
    hydrateRoot(root, <App />);
  });
} else {
  root.replaceChildren();
  createRoot(root).render(<App />);
}
