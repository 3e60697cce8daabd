/** Where the local model's files live on disk (node_modules and vendored). */
import { fileURLToPath as fromFileUrl } from "node:url";

const ROOT = new URL("../../../", import.meta.url);

export const HUMAN_DIST = fromFileUrl(
  new URL("node_modules/@vladmandic/human/dist/human.node-wasm.js", ROOT),
);
export const HUMAN_MODELS_URL = new URL("node_modules/@vladmandic/human/models/", ROOT).href;
export const TFJS_WASM_DIR = fromFileUrl(
  new URL("node_modules/@tensorflow/tfjs-backend-wasm/dist/", ROOT),
) + "/";
export const SELFIE_MODEL_URL = new URL("./models/selfie.json", import.meta.url).href;
