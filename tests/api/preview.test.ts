/**
 * POST /api/preview through the real app with the real local model: a small
 * JPEG of the styled photo, free, for the photo's owner only, rate limited
 * per user; and with the local model active, a generate (or preview) that
 * would change nothing is refused before any charge.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { creditLedger } from "../../db/schema.ts";
import { createApp } from "../../server/app.ts";
import type { ImageModel } from "../../server/imaging/image-model.ts";
import { createLocalModel, type PreviewRequest } from "../../server/imaging/local/local-model.ts";
import { createPreviewer, type Previewer } from "../../server/preview/previewer.ts";
import { backends } from "../helpers/backends.ts";
import { waitFor } from "../helpers/api-test.ts";
import { callApp, openTestContext, type TestContext } from "../helpers/test-app.ts";
import { cropFace, DARK_HAIR, FRONTAL_FACES, landscape } from "../imaging/fixtures.ts";
import { MANY_FACES_MESSAGE } from "../../server/imaging/local/render.ts";

const portrait = await cropFace(DARK_HAIR);
const opts = { sanitizeOps: false, sanitizeResources: false };

let ip = 0;
async function upload(ctx: TestContext, token: string, photo = portrait): Promise<string> {
  const form = new FormData();
  form.append("file", new File([photo.slice()], "me.jpg", { type: "image/jpeg" }));
  const res = await ctx.app.request("/api/upload-photo", {
    method: "POST",
    body: form,
    headers: {
      Authorization: `Bearer ${token}`,
      "X-Forwarded-For": `10.9.${Math.floor(++ip / 250)}.${ip % 250}`,
    },
  });
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  return body.photoId;
}

async function preview(ctx: TestContext, token: string | undefined, body: Record<string, unknown>) {
  const res = await ctx.app.request("/api/preview", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ studioType: "makeup", ...body }),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return {
    status: res.status,
    headers: res.headers,
    bytes,
    json: () => JSON.parse(new TextDecoder().decode(bytes)),
  };
}

const RED_LIPS = { lips: "classic-red-matte" };

async function check(ctx: TestContext, token: string | undefined, photoId: string) {
  return await ctx.call("GET", `/api/photos/${photoId}/check`, token ? { token } : {});
}

/** A hosted model (it prepares nothing and keeps nothing per photo); these tests never generate with it. */
const HOSTED: ImageModel = {
  name: "gemini",
  capabilities: { angles: ["front", "right", "left", "back"], supported: {} },
  generate: () => Promise.reject(new Error("not in this test")),
  close: () => Promise.resolve(),
};

// One local model (one worker) for the whole file: it is what generate and preview use.
const local = await createLocalModel({ workers: 1 });
await local.ready();

for (const backend of backends()) {
  const open = () =>
    openTestContext(backend, { TRUST_PROXY: "true", AUTH_RATE_LIMIT_PER_MINUTE: "100000" }, { model: local });
  const withCtx = (fn: (ctx: TestContext) => Promise<void>) => async () => {
    const ctx = await open();
    const app = createApp({
      db: ctx.database.db,
      config: ctx.config,
      jwtSecret: ctx.jwtSecret,
      storage: ctx.storage,
      model: local,
      previewer: createPreviewer(local),
    });
    try {
      await fn({ ...ctx, app, call: callApp(app) });
    } finally {
      await ctx.close();
    }
  };

  Deno.test(
    {
      name: `[${backend.name}] preview: a 540x960 JPEG by the local model, warm in well under a second`,
      ignore: backend.skip,
      ...opts,
    },
    withCtx(async (ctx) => {
      const me = await ctx.register();
      const photoId = await upload(ctx, me.access_token);
      const cold = await preview(ctx, me.access_token, { photoId, options: RED_LIPS });
      assert.equal(cold.status, 200, new TextDecoder().decode(cold.bytes).slice(0, 300));
      assert.equal(cold.headers.get("content-type"), "image/jpeg");
      assert.equal(cold.headers.get("x-preview-model"), "local");
      assert.equal(cold.headers.get("x-final-model"), "local");
      assert.equal(cold.headers.get("x-preview-notice"), null);
      const meta = await sharp(cold.bytes).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ["jpeg", 540, 960]);
      // Warm: the photo's decode and faces are cached in the worker.
      const times: number[] = [];
      for (const intensity of [40, 60, 80]) {
        const t0 = performance.now();
        const warm = await preview(ctx, me.access_token, {
          photoId,
          options: RED_LIPS,
          intensity: { lips: intensity },
        });
        times.push(performance.now() - t0);
        assert.equal(warm.status, 200);
      }
      times.sort((a, b) => a - b);
      console.log(`warm preview median ${times[1].toFixed(0)} ms`);
      assert.ok(times[1] < 800, `warm preview median ${times[1]} ms`);
      // Free: the balance is untouched.
      const bal = await ctx.call("GET", "/api/users/me", { token: me.access_token });
      assert.equal(bal.body.credits, me.user.credits);
    }),
  );

  Deno.test(
    { name: `[${backend.name}] preview: owner only, signed in only`, ignore: backend.skip, ...opts },
    withCtx(async (ctx) => {
      const owner = await ctx.register();
      const other = await ctx.register();
      const photoId = await upload(ctx, owner.access_token);
      const foreign = await preview(ctx, other.access_token, { photoId, options: RED_LIPS });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.json().code, "not_found");
      const anonymous = await preview(ctx, undefined, { photoId, options: RED_LIPS });
      assert.equal(anonymous.status, 401);
    }),
  );

  Deno.test(
    {
      name:
        `[${backend.name}] photo check: a photo the local model cannot style says why at once; free, owner only`,
      ignore: backend.skip,
      ...opts,
    },
    withCtx(async (ctx) => {
      const me = await ctx.register();
      const fine = await check(ctx, me.access_token, await upload(ctx, me.access_token));
      assert.equal(fine.status, 200, JSON.stringify(fine.body));
      assert.deepEqual(fine.body, { usable: true, finalModel: "local" });
      assert.equal(fine.headers.get("cache-control"), "no-store");

      const noFaceId = await upload(ctx, me.access_token, await landscape());
      const noFace = await check(ctx, me.access_token, noFaceId);
      assert.deepEqual(noFace.body, {
        usable: false,
        detail: "No face found: use a front-facing photo with one person",
        finalModel: "local",
      });
      // Two friends side by side, neither face standing out.
      const pair = await upload(ctx, me.access_token, await cropFace(FRONTAL_FACES[7], 0.75, 3));
      const group = await check(ctx, me.access_token, pair);
      assert.equal(group.body.usable, false);
      assert.equal(group.body.detail, MANY_FACES_MESSAGE);
      // Once a preview has shown the user why (the studio previews each choice), Generate on them is refused
      // before any charge, with the same reason (no charge, no job, no refund).
      for (const [photoId, reason] of [[noFaceId, noFace.body.detail], [pair, MANY_FACES_MESSAGE]]) {
        const seen = await preview(ctx, me.access_token, { photoId, options: RED_LIPS });
        assert.equal(seen.status, 422);
        assert.deepEqual(seen.json(), { detail: reason, code: "model_refused" });
        const gen = await ctx.call("POST", "/api/generate", {
          token: me.access_token,
          body: { photoId, studioType: "makeup", options: RED_LIPS },
        });
        assert.equal(gen.status, 422, JSON.stringify(gen.body));
        assert.deepEqual(gen.body, { detail: reason, code: "model_refused" });
      }
      const history = await ctx.call("GET", "/api/generations", { token: me.access_token });
      assert.deepEqual(history.body.items, [], "a refused generation left a job");
      // Nothing was charged or stored for any of them.
      const after = await ctx.call("GET", "/api/users/me", { token: me.access_token });
      assert.equal(after.body.credits, me.user.credits);
      const rows = await ctx.database.db.select().from(creditLedger).where(
        eq(creditLedger.userId, me.user.id),
      );
      assert.equal(rows.filter((r) => r.reason !== "welcome").length, 0, JSON.stringify(rows));

      const other = await ctx.register();
      assert.equal((await check(ctx, other.access_token, pair)).status, 404);
      // Another user's photo is a 404 to generate too, not the model's verdict on it.
      const foreign = await ctx.call("POST", "/api/generate", {
        token: other.access_token,
        body: { photoId: pair, studioType: "makeup", options: RED_LIPS },
      });
      assert.equal(foreign.status, 404, JSON.stringify(foreign.body));
      assert.equal((await check(ctx, undefined, pair)).status, 401);
      const bad = await check(ctx, me.access_token, "not-a-photo");
      assert.equal(bad.status, 404);
      assert.equal(bad.body.code, "not_found");

      // A hosted model generates from any photo: nothing is rendered, the photo rule still holds.
      const rendered: string[] = [];
      const hosted = createApp({
        db: ctx.database.db,
        config: ctx.config,
        jwtSecret: ctx.jwtSecret,
        storage: ctx.storage,
        model: HOSTED,
        previewer: {
          finalModel: HOSTED.name,
          preview: (req) => (rendered.push(req.photoId), Promise.reject(new Error("not rendered"))),
          prepare: () => Promise.resolve(false),
          forget: () => {},
          checkPhoto: (req) => (rendered.push(req.photoId), Promise.reject(new Error("not checked"))),
          close: () => Promise.resolve(),
        },
      });
      const viaHosted = { ...ctx, app: hosted, call: callApp(hosted) };
      const landscapeId = await upload(viaHosted, me.access_token, await landscape());
      const any = await check(viaHosted, me.access_token, landscapeId);
      assert.deepEqual(any.body, { usable: true, finalModel: "gemini" });
      assert.equal((await check(viaHosted, other.access_token, landscapeId)).status, 404);
      assert.deepEqual(rendered, []);
    }),
  );

  Deno.test(
    {
      name: `[${backend.name}] preview: 429 after 60 a minute per user, others unaffected`,
      ignore: backend.skip,
      ...opts,
    },
    withCtx(async (ctx) => {
      const me = await ctx.register();
      const other = await ctx.register();
      // Refused requests count too (cheap to send, so cheap to abuse): 60 invalid ones fill the window.
      for (let i = 0; i < 60; i++) {
        const r = await preview(ctx, me.access_token, {
          photoId: crypto.randomUUID(),
          options: { sparkle: "x" },
        });
        assert.equal(r.status, 422);
      }
      const limited = await preview(ctx, me.access_token, {
        photoId: crypto.randomUUID(),
        options: RED_LIPS,
      });
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get("retry-after")) >= 1);
      assert.equal(limited.json().code, "rate_limited");
      const fine = await preview(ctx, other.access_token, {
        photoId: crypto.randomUUID(),
        options: RED_LIPS,
      });
      assert.equal(fine.status, 404);
    }),
  );

  Deno.test(
    {
      name: `[${backend.name}] local model: a request that would change nothing is 422 before any charge`,
      ignore: backend.skip,
      ...opts,
    },
    withCtx(async (ctx) => {
      const me = await ctx.register();
      const photoId = await upload(ctx, me.access_token);
      const nothing = [
        { options: { hairStyle: "pixie-cut" }, additionalInstructions: "Make it pop" },
        { options: { outfit: "business-casual" } },
        { additionalInstructions: "Give me a fringe" },
        { options: { lips: "classic-red-matte" }, intensity: { lips: 0 } },
      ];
      for (const body of nothing) {
        const gen = await ctx.call("POST", "/api/generate", {
          token: me.access_token,
          body: { photoId, studioType: "makeup", view360: false, ...body },
        });
        assert.equal(gen.status, 422, JSON.stringify([body, gen.body]));
        assert.equal(gen.body.code, "nothing_to_render");
        assert.match(
          gen.body.detail,
          body.intensity
            ? /^Nothing to generate: Lips at intensity 0 changes nothing, so the result would be your photo unchanged\. Raise the intensity/
            : /^Nothing to generate: the local model cannot render what you chose/,
        );
        assert.match(gen.body.detail, /you were not charged/);
        const pre = await preview(ctx, me.access_token, { photoId, ...body });
        assert.equal(pre.status, 422);
        assert.equal(pre.json().code, "nothing_to_render");
      }
      const after = await ctx.call("GET", "/api/users/me", { token: me.access_token });
      assert.equal(after.body.credits, me.user.credits, "no credit moved");
      const history = await ctx.call("GET", "/api/generations", { token: me.access_token });
      assert.equal(history.body.items.length, 0);
      // Something renderable beside the unrenderable still generates (and is charged).
      const ok = await ctx.call("POST", "/api/generate", {
        token: me.access_token,
        body: {
          photoId,
          studioType: "makeup",
          options: { lips: "classic-red-matte", outfit: "business-casual" },
        },
      });
      assert.equal(ok.status, 202, JSON.stringify(ok.body));
    }),
  );

  Deno.test(
    {
      name:
        `[${backend.name}] local model: a colour this photo refuses, and nothing else: unpreviewed, the job fails and is refunded; once previewed, refused before any charge`,
      ignore: backend.skip,
      ...opts,
    },
    withCtx(async (ctx) => {
      // Platinum on dark hair would need bleaching: known only once the photo is rendered. Asked for before a
      // preview showed it, the job is charged, fails with the reason and the 2 credits come back.
      const me = await ctx.register();
      const photoId = await upload(ctx, me.access_token);
      const platinum = { studioType: "hair", options: { hairColor: "platinum-blonde" } };
      const gen = await ctx.call("POST", "/api/generate", {
        token: me.access_token,
        body: { photoId, ...platinum },
      });
      assert.equal(gen.status, 202, JSON.stringify(gen.body));
      const charged = await ctx.call("GET", "/api/users/me", { token: me.access_token });
      assert.equal(charged.body.credits, me.user.credits - 2);
      // Drained until the job ends (a runner finds no job while the model reports itself starting).
      const status = await waitFor("the job's end", async () => {
        await ctx.drain();
        const s = await ctx.call("GET", `/api/generation/${gen.body.generationId}/status`, {
          token: me.access_token,
        });
        return ["queued", "processing"].includes(s.body.status) ? null : s;
      }, { timeoutMs: 60_000, intervalMs: 100 });
      assert.equal(status.body.status, "failed", JSON.stringify(status.body));
      assert.match(
        status.body.error,
        /^Nothing could be changed on this photo: Hair Color "Platinum Blonde" was not applied: lightening dark hair .+ your credits have been refunded\.$/,
      );
      assert.equal(status.body.resultUrl ?? null, null);
      const after = await ctx.call("GET", "/api/users/me", { token: me.access_token });
      assert.equal(after.body.credits, me.user.credits, "the charge was refunded");
      const ledger = () =>
        ctx.database.db.select().from(creditLedger).where(eq(creditLedger.userId, me.user.id));
      const rows = (await ledger()).filter((r) => r.ref === gen.body.generationId);
      assert.deepEqual(
        rows.map((r) => [r.reason, r.delta]).sort(),
        [["generation_charge", -2], ["generation_refund", 2]],
        "the ledger explains both moves",
      );

      // Once the preview has shown it (the photo as framed, the note, X-Preview-Refused), Generate on the
      // same choices is refused before any charge, with the reason; another shade still generates.
      const refusedText =
        /^Nothing could be changed on this photo: Hair Color "Platinum Blonde" was not applied: lightening dark hair .+\. Try another choice; you were not charged\.$/;
      const seen = await preview(ctx, me.access_token, { photoId, ...platinum });
      assert.equal(seen.status, 200);
      assert.equal(seen.headers.get("X-Preview-Refused"), "true");
      const notes: string[] = JSON.parse(decodeURIComponent(seen.headers.get("X-Preview-Notes")!));
      assert.ok(
        notes.some((n) => n.startsWith('Hair Color "Platinum Blonde" was not applied')),
        notes.join("; "),
      );
      const rowsBefore = (await ledger()).length;
      const again = await ctx.call("POST", "/api/generate", {
        token: me.access_token,
        body: { photoId, ...platinum },
      });
      assert.equal(again.status, 422, JSON.stringify(again.body));
      assert.equal(again.body.code, "model_refused");
      assert.match(again.body.detail, refusedText);
      assert.equal((await ledger()).length, rowsBefore, "a refused generation moved credits");
      const history = await ctx.call("GET", "/api/generations", { token: me.access_token });
      assert.equal(history.body.items.length, 1, "a refused generation left a job");

      const auburn = { studioType: "hair", options: { hairColor: "auburn" } };
      const shown = await preview(ctx, me.access_token, { photoId, ...auburn });
      assert.equal(shown.status, 200);
      assert.equal(shown.headers.get("X-Preview-Refused"), null);
      const dyed = await ctx.call("POST", "/api/generate", {
        token: me.access_token,
        body: { photoId, ...auburn },
      });
      assert.equal(dyed.status, 202, JSON.stringify(dyed.body));
      // Another user's photo is a 404, not the model's verdict on it.
      const other = await ctx.register();
      const foreign = await ctx.call("POST", "/api/generate", {
        token: other.access_token,
        body: { photoId, ...platinum },
      });
      assert.equal(foreign.status, 404, JSON.stringify(foreign.body));
    }),
  );
}

Deno.test(
  {
    name:
      "preview: with a hosted model active, the local model prepares an upload, previews it warm and says so, and forgets a deleted photo",
    ...opts,
  },
  async () => {
    const previewer = createPreviewer(HOSTED);
    try {
      const req: PreviewRequest = {
        photoId: crypto.randomUUID(),
        photo: portrait,
        references: [],
        studioType: "makeup",
        options: {
          ...(await import("../../server/styling/catalog.ts")).defaultOptions("makeup"),
          lips: "classic-red-matte",
        },
        intensity: { lookStyle: 60, eyeshadow: 60, lips: 60, baseMakeup: 60, cheeks: 60, extras: 60 },
        instructions: null,
      };
      // Its upload prepared (the app asks the previewer: the hosted model prepares nothing), the first preview is
      // warm: it was the one that decoded, searched and segmented the photo.
      assert.equal(await previewer.prepare({ photoId: req.photoId, photo: portrait }), true);
      const out = await previewer.preview(req);
      assert.equal(out.photoCached, true, "the first preview found the upload unprepared");
      assert.equal(previewer.finalModel, "gemini");
      assert.equal((await sharp(out.image).metadata()).width, 540);
      // The photo deleted, the previewer's own model keeps nothing of it.
      previewer.forget([req.photoId]);
      assert.equal((await previewer.preview(req)).photoCached, false, "the deleted photo was still cached");
    } finally {
      await previewer.close();
    }
  },
);

for (const backend of backends()) {
  Deno.test(
    {
      name:
        `[${backend.name}] preview: an upload is prepared by the active model, or by the previewer when the model prepares nothing`,
      ignore: backend.skip,
      ...opts,
    },
    async () => {
      const ctx = await openTestContext(backend, {
        TRUST_PROXY: "true",
        AUTH_RATE_LIMIT_PER_MINUTE: "100000",
      });
      const asked: string[] = [];
      const recording = (who: string) => (photo: { photoId: string }) => {
        asked.push(`${who} ${photo.photoId}`);
        return Promise.resolve(true);
      };
      const previewer: Previewer = {
        finalModel: "gemini",
        preview: () => Promise.reject(new Error("not in this test")),
        prepare: recording("previewer"),
        forget: () => {},
        checkPhoto: () => Promise.reject(new Error("not in this test")),
        close: () => Promise.resolve(),
      };
      try {
        const me = await ctx.register();
        for (
          const [model, who] of [[HOSTED, "previewer"], [
            { ...HOSTED, prepare: recording("model") },
            "model",
          ]] as const
        ) {
          const app = createApp({
            db: ctx.database.db,
            config: ctx.config,
            jwtSecret: ctx.jwtSecret,
            storage: ctx.storage,
            model,
            previewer,
          });
          asked.length = 0;
          const photoId = await upload({ ...ctx, app, call: callApp(app) }, me.access_token);
          assert.deepEqual(asked, [`${who} ${photoId}`]);
        }
      } finally {
        await ctx.close();
      }
    },
  );
}

globalThis.addEventListener("unload", () => void local.close());
