/**
 * Which model renders live previews: always the local one. When the active
 * model is local, previews share its worker pool; when a hosted model is
 * active, a one-worker local model is started on the first preview (so a
 * server that never previews pays nothing for it).
 */
import type { ImageModel } from "../imaging/image-model.ts";
import { createLocalModel, type LocalModel, type PreviewRequest } from "../imaging/local/local-model.ts";
import type { RenderOutput } from "../imaging/local/render.ts";

export interface Previewer {
  /** The model the final image will come from (e.g. "local", "gemini"). */
  readonly finalModel: string;
  preview(req: PreviewRequest): Promise<RenderOutput>;
  /** See ImageModel.forget: a previewer with a model of its own has it forget the photos. */
  forget(photoIds: readonly string[]): void;
  close(): Promise<void>;
}

const isLocal = (m: ImageModel): m is LocalModel =>
  m.name === "local" && typeof (m as Partial<LocalModel>).preview === "function";

export function createPreviewer(active: ImageModel): Previewer {
  if (isLocal(active)) {
    // The pool belongs to the active model: closing it is main's job, not ours.
    // (The active model is told of deleted photos by the app: see AppDeps.model.)
    return {
      finalModel: active.name,
      preview: (req) => active.preview(req),
      forget: () => {},
      close: () => Promise.resolve(),
    };
  }
  let own: Promise<LocalModel> | undefined;
  return {
    finalModel: active.name,
    async preview(req) {
      own ??= createLocalModel({ workers: 1 });
      return await (await own).preview(req);
    },
    forget(photoIds) {
      own?.then((m) => m.forget(photoIds), () => {});
    },
    async close() {
      if (own) await (await own).close();
    },
  };
}
