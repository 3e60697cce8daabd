/**
 * FaceModels inside a model worker: each call is a request to the pool's
 * face-models worker (face-models-worker.ts) over the port the pool gave this
 * worker. Images are copied to the port; masks come back moved.
 */
import type { DetectedFace, FaceModels, RawImage } from "./face-engine.ts";
import type { FaceModelsReply, FaceModelsRequest } from "./face-models-worker.ts";

/** A request without its id (Omit over each member of the union). */
type Call = FaceModelsRequest extends infer R ? R extends FaceModelsRequest ? Omit<R, "id"> : never : never;

interface Waiting {
  resolve: (reply: FaceModelsReply) => void;
  reject: (err: Error) => void;
}

export class FaceModelsClient implements FaceModels {
  #port: MessagePort | undefined;
  #waiting = new Map<number, Waiting>();
  #nextId = 1;
  /** Calls made before the first port arrives. */
  #connected!: Promise<void>;
  #onConnect!: () => void;

  constructor() {
    this.#connected = new Promise((resolve) => this.#onConnect = resolve);
  }

  /**
   * Uses `port` from now on. Calls still waiting on the previous port fail: the pool replaces a
   * face-models worker that crashed (their answers will never come) or, idle, one that ran jobs.
   */
  connect(port: MessagePort): void {
    this.#port?.close();
    for (const w of this.#waiting.values()) w.reject(new Error("the face models were restarted"));
    this.#waiting.clear();
    this.#port = port;
    port.onmessage = (ev: MessageEvent<FaceModelsReply>) => {
      const w = this.#waiting.get(ev.data.id);
      this.#waiting.delete(ev.data.id);
      w?.resolve(ev.data);
    };
    this.#onConnect();
  }

  async #call(req: Call, transfer: Transferable[] = []): Promise<FaceModelsReply> {
    await this.#connected;
    const id = this.#nextId++;
    const reply = await new Promise<FaceModelsReply>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#port!.postMessage({ ...req, id } as FaceModelsRequest, transfer);
    });
    if (!reply.ok) throw new Error(`face models: ${reply.message}`);
    return reply;
  }

  async detect(img: RawImage): Promise<DetectedFace[]> {
    // A view is cloned with its whole buffer: send exactly the pixels.
    const whole = img.data.byteOffset === 0 && img.data.byteLength === img.data.buffer.byteLength;
    const data = whole ? img.data : img.data.slice();
    const reply = await this.#call({ type: "detect", image: { data, width: img.width, height: img.height } });
    return "faces" in reply ? reply.faces : [];
  }

  async segment(input: Float32Array): Promise<Float32Array> {
    const reply = await this.#call({ type: "segment", input });
    if (!("mask" in reply)) throw new Error("face models: no mask");
    return reply.mask;
  }
}
