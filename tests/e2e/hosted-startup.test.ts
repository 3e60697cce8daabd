/**
 * The product process with a hosted model: a missing or malformed key stops
 * start-up with a message naming the variable; with a key the server starts,
 * GET /api/health reports the model, and a key the provider refuses turns it
 * `failed` after the first job (which is refunded).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { startFakeGemini } from "../helpers/fake-gemini.ts";
import { startLiveServer } from "../helpers/live-server.ts";
import { cropFace, FRONTAL_FACES } from "../imaging/fixtures.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function startupOutput(env: Record<string, string>): Promise<{ code: number; text: string }> {
  const dataDir = await Deno.makeTempDir({ prefix: "styletwin-hosted-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "main.ts"],
      cwd: ROOT,
      env: { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, DATABASE_URL: "", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const d = new TextDecoder();
    return { code: out.code, text: d.decode(out.stdout) + d.decode(out.stderr) };
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

Deno.test("hosted start-up: a missing or malformed key stops the server, naming the variable", async () => {
  const missing = await startupOutput({ IMAGE_MODEL: "gemini" });
  assert.notEqual(missing.code, 0);
  assert.match(missing.text, /GEMINI_API_KEY: required when IMAGE_MODEL=gemini/);
  const malformed = await startupOutput({
    IMAGE_MODEL: "openai",
    OPENAI_API_KEY: "sk-has a space 0123456789",
  });
  assert.notEqual(malformed.code, 0);
  assert.match(malformed.text, /OPENAI_API_KEY: OPENAI_API_KEY is malformed/);
  assert.ok(!malformed.text.includes("has a space"), "the key itself is never printed");
});

Deno.test({
  name: "hosted start-up: health reports the model; a refused key turns it failed and the job is refunded",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const fake = await startFakeGemini();
  const server = await startLiveServer({
    env: { IMAGE_MODEL: "gemini", GEMINI_API_KEY: "refused-key-0123456789", GEMINI_BASE_URL: fake.url },
    buildClient: false,
  });
  try {
    const health = async () => (await (await fetch(`${server.url}/api/health`)).json());
    let h = await health();
    for (let i = 0; i < 300 && JSON.stringify(h).includes('"starting"'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      h = await health();
    }
    assert.match(JSON.stringify(h), /gemini/);
    const reg = await (await fetch(`${server.url}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        email: `h-${Date.now()}@example.com`,
        password: "Styl3d&Ready!",
        full_name: "H",
      }),
    })).json();
    const token = reg.access_token;
    const form = new FormData();
    form.append(
      "file",
      new File([await cropFace(FRONTAL_FACES[5]) as Uint8Array<ArrayBuffer>], "me.jpg", {
        type: "image/jpeg",
      }),
    );
    const up = await (await fetch(`${server.url}/api/upload-photo`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    })).json();
    const gen = await (await fetch(`${server.url}/api/generate`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ photoId: up.photoId, studioType: "barber", options: { facialHair: "goatee" } }),
    })).json();
    let status;
    for (let i = 0; i < 300; i++) {
      status = await (await fetch(`${server.url}/api/generation/${gen.generationId}/status`, {
        headers: { authorization: `Bearer ${token}` },
      })).json();
      if (status.status === "failed" || status.status === "completed") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status.status, "failed");
    assert.match(status.error, /not available right now/);
    assert.equal(fake.requests.length, 1, "an invalid key is not retried");
    const me =
      await (await fetch(`${server.url}/api/users/me`, { headers: { authorization: `Bearer ${token}` } }))
        .json();
    assert.equal(me.credits, 10, "refunded");
    assert.match(JSON.stringify(await health()), /"failed"/);
    assert.match(server.output(), /refused the API key; set a valid GEMINI_API_KEY/);
  } finally {
    await server.close();
    await fake.close();
  }
});
