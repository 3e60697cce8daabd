/** GET /api/styling-options. */
import { Hono } from "hono";
import type { ImageModel } from "../imaging/image-model.ts";
import { stylingOptions } from "./styling.service.ts";

export function stylingRoutes(model: Pick<ImageModel, "name" | "capabilities">) {
  const body = stylingOptions(model); // static for the life of the process
  return new Hono().get("/styling-options", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(body);
  });
}
