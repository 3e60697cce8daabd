/**
 * The whole app as one element: the browser mounts it (client/main.tsx) and the build renders the
 * landing page from it into index.html (client/prerender.tsx), so both produce the same markup.
 */
import { QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { StrictMode } from "react";
import { queryClient } from "./api/client.ts";
import { router } from "./routes/router.tsx";

export { router };

export function App() {
  return (
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>
  );
}
