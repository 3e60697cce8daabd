/**
 * Which model renders live previews: always the local one. When the active
 * model is local, previews share its worker pool; in hybrid mode they share
 * the local model the hybrid paints its makeup with; when a hosted model
 * alone is active, a one-worker local model is started on the first upload
 * or preview (so a server that never previews pays nothing for it).
 */
import type { ImageModel } from "../imaging/image-model.ts";
import type { HybridModel } from "../imaging/hosted/hybrid-model.ts";
import { createLocalModel, type LocalModel, type PreviewRequest } from "../imaging/local/local-model.ts";
import type { RenderOutput } from "../imaging/local/render.ts";

export interface Previewer {
  /** The model the final image will come from (e.g. "local", "gemini"). */
  readonly finalModel: string;
  preview(req: PreviewRequest): Promise<RenderOutput>;
  /**
   * An upload, prepared for its previews (see ImageModel.prepare): the app asks this when the active model
   * prepares nothing itself (a hosted or hybrid model), so that the first preview finds the photo warm.
   */
  prepare(photo: { photoId: string; photo: Uint8Array }): Promise<boolean>;
  /** See ImageModel.forget. */
  forget(photoIds: readonly string[]): void;
  /** See LocalModel.checkPhoto: why the local model cannot style the photo at all, if it cannot. */
  checkPhoto(req: { photoId: string; photo: Uint8Array; signal?: AbortSignal }): Promise<string | undefined>;
  close(): Promise<void>;
}

const isLocal = (m: ImageModel | undefined): m is LocalModel =>
  m?.name === "local" && typeof (m as Partial<LocalModel>).preview === "function";

/** The local model previews can share: the active one, or the one a hybrid model paints with. */
function sharedLocal(active: ImageModel): LocalModel | undefined {
  if (isLocal(active)) return active;
  const painter = (active as Partial<HybridModel>).local;
  return isLocal(painter) ? painter : undefined;
}

export function createPreviewer(active: ImageModel): Previewer {
  const shared = sharedLocal(active);
  if (shared) {
    // The pool belongs to the active model: closing it is main's job, not ours.
    return {
      finalModel: active.name,
      preview: (req) => shared.preview(req),
      prepare: (photo) => shared.prepare(photo),
      forget: (photoIds) => shared.forget(photoIds),
      checkPhoto: (req) => shared.checkPhoto(req),
      close: () => Promise.resolve(),
    };
  }
  let own: Promise<LocalModel> | undefined;
  const model = () => (own ??= createLocalModel({ workers: 1 }));
  return {
    finalModel: active.name,
    async preview(req) {
      return await (await model()).preview(req);
    },
    async prepare(photo) {
      return await (await model()).prepare(photo);
    },
    forget(photoIds) {
      own?.then((m) => m.forget(photoIds), () => {});
    },
    async checkPhoto(req) {
      return await (await model()).checkPhoto(req);
    },
    async close() {
      if (own) await (await own).close();
    },
  };
}
