/**
 * IMAGE_MODEL=hybrid against the fake Gemini server: the generated image
 * passes through the local makeup painter unmoved, and the chosen lipstick is
 * the catalogue's shade on the result's lips (measured in CIELAB ΔE), which
 * the generative output alone is not. Prints the figures the README quotes.
 */
import assert from "node:assert/strict";
import { deltaE, srgbToLab } from "../../server/imaging/local/color.ts";
import { FaceEngine } from "../../server/imaging/local/face-engine.ts";
import { faceGeometry } from "../../server/imaging/local/face-geometry.ts";
import { LIPS_INNER, LIPS_OUTER } from "../../server/imaging/local/landmarks.ts";
import { createLocalModel } from "../../server/imaging/local/local-model.ts";
import { decodePhoto, detectFaces } from "../../server/imaging/local/render.ts";
import { CallLimits } from "../../server/imaging/hosted/call-limits.ts";
import { createGeminiProvider } from "../../server/imaging/hosted/gemini-provider.ts";
import { createHostedModel } from "../../server/imaging/hosted/hosted-model.ts";
import { createHybridModel, MAKEUP_NOT_EXACT } from "../../server/imaging/hosted/hybrid-model.ts";
import { createPreviewer } from "../../server/preview/previewer.ts";
import { CATALOG, defaultOptions } from "../../server/styling/catalog.ts";
import { startFakeGemini } from "../helpers/fake-gemini.ts";
import { cropFace, decode, FRONTAL_FACES, meanLab, meanPixelDeltaE, polygonPixels } from "./fixtures.ts";

const hex = (h: string) =>
  srgbToLab(parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16));

Deno.test({
  name: "hybrid: the generated image keeps its framing and gets the exact lipstick shade",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const fake = await startFakeGemini();
  // As createImageModel wires hybrid mode: the hosted check counts faces in the local model's workers.
  const local = await createLocalModel({ workers: 1 });
  const faces = local.faceCounter();
  const hosted = createHostedModel({
    provider: createGeminiProvider({ apiKey: fake.apiKey, baseUrl: fake.url }),
    faces,
    limits: new CallLimits(4, 100),
    budgetMs: 30_000,
  });
  const hybrid = createHybridModel({ hosted, local, faces });
  const engine = await FaceEngine.load();
  try {
    await hybrid.ready!();
    const lip = CATALOG.makeup.lips.find((l) => l.id === "classic-red-matte")!;
    const req = {
      photo: await cropFace(FRONTAL_FACES[5]),
      references: [],
      studioType: "makeup" as const,
      options: { ...defaultOptions("makeup"), lips: lip.id, outfit: "tailored-suit" },
      intensity: { lookStyle: 60, eyeshadow: 60, lips: 100, baseMakeup: 60, cheeks: 60, extras: 60 },
      instructions: null,
      angle: "front" as const,
      width: 1080,
      height: 1920,
    };
    const generated = await hosted.generate(req);
    const painted = await hybrid.generate(req);
    assert.equal(fake.requests.length, 2, "one provider call each");
    assert.deepEqual(painted.notes, []);
    assert.equal(painted.prompt, generated.prompt);
    await Deno.mkdir("test-results/hosted", { recursive: true });
    await Deno.writeFile("test-results/hosted/hybrid-generated.jpg", generated.image);
    await Deno.writeFile("test-results/hosted/hybrid-painted.jpg", painted.image);

    const a = await decode(generated.image), b = await decode(painted.image);
    assert.deepEqual([b.width, b.height], [1080, 1920]);
    const [face] = await detectFaces(engine, await decodePhoto(generated.image));
    const g = faceGeometry(face.mesh);
    const inner = new Set(polygonPixels(a, LIPS_INNER.map((i) => g.pts[i]), 0, 0.05));
    const lips = polygonPixels(a, LIPS_OUTER.map((i) => g.pts[i]), g.fw * 0.01).filter((p) => !inner.has(p));
    const target = hex(lip.hex!);
    const before = deltaE(meanLab(a, lips), target), after = deltaE(meanLab(b, lips), target);
    // Framing passes through: a background patch far from the face is unchanged.
    const patch: number[] = [];
    for (let y = 20; y < 220; y++) for (let x = 20; x < 220; x++) patch.push(y * a.width + x);
    const moved = meanPixelDeltaE(a, b, patch);
    console.log(
      `hybrid figures: lips mean ΔE to ${lip.label} ${lip.hex}: generated ${before.toFixed(1)}, hybrid ${
        after.toFixed(1)
      }; background ΔE ${moved.toFixed(2)}; lip pixels ${lips.length}`,
    );
    assert.ok(after < 10, `the painted lips are the catalogue shade (ΔE ${after.toFixed(1)})`);
    assert.ok(after < before / 2, "much closer than the generated image alone");
    assert.ok(moved < 2, `the image was not reframed (background ΔE ${moved.toFixed(2)})`);

    // A framing the painter would move (the face small, far down): kept as generated, with a note.
    fake.enqueue({
      kind: "success",
      image: new Uint8Array(
        await (await import("sharp")).default(generated.image).resize(400, 711).extend({
          top: 1000,
          bottom: 209,
          left: 340,
          right: 340,
          background: "#777777",
        }).png().toBuffer(),
      ),
    });
    const kept = await hybrid.generate(req);
    assert.deepEqual(kept.notes, [MAKEUP_NOT_EXACT]);

    // Two looks on one uploaded photo (the job runner gives its id): each is painted on its own generated image.
    // The painter cached the first generated image under the photo's id and painted the second look on it.
    const onPhoto = { ...req, photoId: crypto.randomUUID() };
    const first = await decode((await hybrid.generate(onPhoto)).image);
    const bluer = new Uint8Array(
      await (await import("sharp")).default(generated.image).tint("#7a8aa0").png().toBuffer(),
    );
    fake.enqueue({ kind: "success", image: bluer });
    const second = await decode((await hybrid.generate(onPhoto)).image);
    const asGenerated = meanPixelDeltaE(await decode(bluer), second, patch);
    console.log(
      `hybrid, second look on one photo: background ΔE to its own generated image ${
        asGenerated.toFixed(2)
      }, ` +
        `to the first look's ${meanPixelDeltaE(first, second, patch).toFixed(2)}`,
    );
    assert.ok(asGenerated < 2, `the second look was painted on another image (ΔE ${asGenerated.toFixed(2)})`);

    // The live previews render in the hybrid's own local model (a second pool, with its own copy of the face
    // models, was started for them before), and an upload is prepared there.
    const previewer = createPreviewer(hybrid);
    assert.equal(
      (await local.workerStats()).workers[0].cacheBytes,
      0,
      "the painter keeps no generated image",
    );
    const photoId = crypto.randomUUID();
    assert.equal(await previewer.prepare({ photoId, photo: req.photo }), true);
    const shown = await previewer.preview({ ...req, photoId });
    assert.equal(shown.photoCached, true, "the preview found the upload unprepared");
    assert.ok((await local.workerStats()).workers[0].cacheBytes > 0, "previewed elsewhere");
    assert.equal(previewer.finalModel, "hybrid");
    await previewer.close();
    assert.equal(local.health!().state, "ready", "closing the previewer closed the hybrid's local model");
  } finally {
    await hybrid.close();
    await fake.close();
  }
});
