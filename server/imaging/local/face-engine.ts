/**
 * The neural parts of the local model, loaded once per worker: Human's face
 * detector + 478-point mesh on the tfjs wasm backend, and MediaPipe selfie
 * segmentation (vendored, see models/README.md). Models are read from disk
 * through a tfjs load router; nothing is fetched from the network.
 */
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { fileURLToPath as fromFileUrl } from "node:url";
import { FACE_LEFT_EDGE, FACE_RIGHT_EDGE } from "./landmarks.ts";
import { dist, type Point } from "./masks.ts";
import { HUMAN_DIST, HUMAN_MODELS_URL, SELFIE_MODEL_URL, TFJS_WASM_DIR } from "./model-files.ts";

export interface DetectedFace {
  /** x, y, width, height in input pixels. */
  box: [number, number, number, number];
  score: number;
  /** 478 points in input pixels. */
  mesh: Point[];
  /**
   * On a tilted head, the mesh measured again on a copy turned upright, in the same pixels: where
   * the makeup goes, the lips excepted (see detectFaces in photo-faces.ts). Undefined on an upright head.
   */
  uprightMesh?: Point[];
  /**
   * Each mesh point's depth in face widths (the mesh's z over the width between its points 234 and 454),
   * larger farther from the camera: the nose's tip about -0.14, the face's sides 0.1-0.4 as the head turns.
   * Unitless, so the mesh's scaling onto the photo or the canvas leaves it as it is (see person-light.ts).
   */
  depth: number[];
  /** Head rotation in radians. */
  yaw: number;
  pitch: number;
  roll: number;
}

/** The mesh's z in face widths (see DetectedFace.depth). */
function meshDepth(mesh: number[][]): number[] {
  // (The face's width as faceGeometry measures it.)
  const fw = dist(mesh[FACE_LEFT_EDGE] as Point, mesh[FACE_RIGHT_EDGE] as Point) || 1;
  return mesh.map((p) => (p[2] ?? 0) / fw);
}

export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * What the render needs of the neural models: FaceEngine in-process, or its proxy in a model
 * worker (face-models-client.ts), which asks the pool's one face-models worker.
 */
export interface FaceModels {
  /** All faces in an RGB image, largest first. */
  detect(img: RawImage): Promise<DetectedFace[]>;
  /** Person probability (0..1) on a 256x256 grid for a 256x256 RGB input (values 0..1, HWC). */
  segment(input: Float32Array): Promise<Float32Array>;
}

// deno-lint-ignore no-explicit-any
type Any = any;

/**
 * tfjs's wasm backend copies a tensor for `Identity` (clone), where the cpu
 * and webgl backends share the data (tensors are immutable, so sharing is
 * safe). Human clones each input photo: a second full-size float32 copy in
 * the wasm memory, whose high-water mark stays with the worker (wasm memory
 * never shrinks): 125 -> 73 MB on a 1920x1537 photo.
 */
function shareIdentity(tf: Any): void {
  tf.unregisterKernel("Identity", "wasm");
  tf.registerKernel({
    kernelName: "Identity",
    backendName: "wasm",
    kernelFunc: ({ inputs: { x }, backend }: Any) => {
      backend.incRef(x.dataId);
      return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
    },
  });
}

export class FaceEngine implements FaceModels {
  private constructor(
    private readonly human: Any,
    private readonly selfie: Any,
  ) {}

  static async load(): Promise<FaceEngine> {
    const require = createRequire(import.meta.url);
    const H = require(HUMAN_DIST);
    const human = new H.Human({
      backend: "wasm",
      wasmPath: TFJS_WASM_DIR,
      modelBasePath: HUMAN_MODELS_URL,
      cacheSensitivity: 0,
      debug: false,
      face: {
        enabled: true,
        detector: {
          rotation: false,
          maxDetected: 8,
          skipFrames: 0,
          skipTime: 0,
          minConfidence: 0.3,
          return: false,
        },
        mesh: { enabled: true },
        iris: { enabled: true, skipFrames: 0, skipTime: 0 },
        attention: { enabled: false },
        description: { enabled: false },
        emotion: { enabled: false },
        antispoof: { enabled: false },
        liveness: { enabled: false },
        gear: { enabled: false },
      },
      body: { enabled: false },
      hand: { enabled: false },
      object: { enabled: false },
      gesture: { enabled: false },
      segmentation: { enabled: false },
      filter: { enabled: false },
    });
    const tf = human.tf;
    tf.io.registerLoadRouter((url: unknown) => {
      if (typeof url !== "string" || !url.startsWith("file://")) return null;
      const path = fromFileUrl(url);
      return {
        load: async () => {
          const json = JSON.parse(readFileSync(path, "utf8"));
          const dir = path.slice(0, path.lastIndexOf("/") + 1);
          return await tf.io.getModelArtifactsForJSON(
            json,
            (manifest: { paths: string[]; weights: unknown[] }[]) => {
              const bufs = manifest.flatMap((g) => g.paths.map((p) => readFileSync(dir + p)));
              const total = bufs.reduce((a, b) => a + b.length, 0);
              const out = new Uint8Array(total);
              let o = 0;
              for (const b of bufs) {
                out.set(b, o);
                o += b.length;
              }
              return Promise.resolve([
                manifest.flatMap((g) => g.weights),
                out.buffer,
              ]);
            },
          );
        },
      };
    });
    await human.load();
    const selfie = await tf.loadGraphModel(SELFIE_MODEL_URL);
    shareIdentity(tf);
    // A graph model keeps the weight file it was loaded from (4.8 MB for the four) beside the tensors made
    // from it in the wasm memory; nothing reads it after loading.
    for (const model of [...Object.values(human.models.models), selfie] as Any[]) {
      if (model?.artifacts) model.artifacts.weightData = undefined;
    }
    return new FaceEngine(human, selfie);
  }

  /** All faces in an RGB image, largest first. */
  async detect(img: RawImage): Promise<DetectedFace[]> {
    const tf = this.human.tf;
    const tensor = tf.tensor3d(Float32Array.from(img.data), [img.height, img.width, 3], "float32");
    try {
      const res = await this.human.detect(tensor);
      const faces: DetectedFace[] = (res.face as Any[])
        .filter((f) => Array.isArray(f.mesh) && f.mesh.length >= 468)
        .map((f) => ({
          box: f.box as [number, number, number, number],
          score: f.score ?? f.faceScore ?? 0,
          mesh: (f.mesh as number[][]).map((p) => [p[0] + 0.5, p[1] + 0.5]),
          depth: meshDepth(f.mesh),
          yaw: f.rotation?.angle?.yaw ?? 0,
          pitch: f.rotation?.angle?.pitch ?? 0,
          roll: f.rotation?.angle?.roll ?? 0,
        }));
      faces.sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
      return faces;
    } finally {
      tensor.dispose();
    }
  }

  /**
   * Person probability (0..1) on a 256x256 grid for a 256x256 RGB input
   * (values 0..1, HWC), as MediaPipe selfie segmentation expects.
   */
  segment(input: Float32Array): Promise<Float32Array> {
    const tf = this.human.tf;
    return Promise.resolve(tf.tidy(() => {
      const t = tf.tensor4d(input, [1, 256, 256, 3], "float32");
      const out = this.selfie.execute(t);
      return out.dataSync() as Float32Array;
    }));
  }

  tensorCount(): number {
    return this.human.tf.memory().numTensors;
  }

  /** Size of the tfjs wasm backend's linear memory (0 when the backend is not wasm). */
  wasmBytes(): number {
    return this.human.tf.engine().backend?.wasm?.HEAPU8?.buffer?.byteLength ?? 0;
  }
}
