/**
 * More than one machine: two StyleTwin processes (the real main.ts, each with
 * one job worker and the real local model) on one PostgreSQL database and one
 * S3-compatible store (s3rver). Jobs submitted through both are each completed
 * exactly once, the claims are split between the processes, and after a kill -9
 * of one process mid-job the other finishes that job once its lease lapses.
 * Postgres only: PGlite is one process's database.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { type LiveServer, startLiveServer } from "../helpers/live-server.ts";
import { startS3rver } from "../helpers/s3rver.ts";
import { waitFor } from "../helpers/api-test.ts";
import { PASSWORD } from "../helpers/test-app.ts";
import { CATALOG } from "../../server/styling/catalog.ts";
import { cropFace, FRONTAL_FACES } from "../imaging/fixtures.ts";

const TEST_DATABASE_URL = Deno.env.get("TEST_DATABASE_URL");
const JOBS = 30;
/** A real change (a lipstick), so the model has something to render. */
const LIPSTICK = CATALOG.makeup.lips[1].id;
const LEASE_SECONDS = 3;

async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  const name = `styletwin_scale_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = postgres(TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}

async function json(
  server: LiveServer,
  path: string,
  init: { body?: unknown; token?: string; method?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: await res.json() };
}

/** Ids this process logged as completed (one JSON line per completion). */
function completedIn(server: LiveServer): string[] {
  return [...server.output().matchAll(/"msg":"generation completed","id":"([0-9a-f-]{36})"/g)].map((m) =>
    m[1]
  );
}

Deno.test({
  name:
    "[postgres] scale-out: two processes on one Postgres and one S3 store share 30 jobs; a kill -9 mid-job is survived",
  ignore: !TEST_DATABASE_URL,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const database = await freshDatabase();
  const s3 = await startS3rver();
  const sql = postgres(database.url, { max: 2, onnotice: () => {} });
  const servers: LiveServer[] = [];
  try {
    const env = {
      ...s3.env,
      DATABASE_URL: database.url,
      JOB_WORKERS: "1",
      JOB_LEASE_SECONDS: String(LEASE_SECONDS),
      WELCOME_CREDITS: "100",
      LOG_LEVEL: "info",
    };
    // Both start together: the migration lock lets one migrate while the other waits.
    servers.push(
      ...await Promise.all([startLiveServer({ env }), startLiveServer({ env, buildClient: false })]),
    );
    const [a, b] = servers;
    await Promise.all(servers.map((s) =>
      waitFor("a ready model", async () => {
        const res = await fetch(`${s.url}/api/health`);
        const report = await res.json();
        return report.components.model.status === "ready";
      }, { timeoutMs: 60_000, intervalMs: 200 })
    ));

    // One user per process; each uploads a real portrait there and submits half the jobs there.
    // One frontal face, cropped at test time from a demo photo (nothing of it is committed).
    const portrait = await cropFace(FRONTAL_FACES[0]);
    const submitters = await Promise.all(servers.map(async (server, i) => {
      const reg = await json(server, "/api/auth/register", {
        body: {
          email: `scale-${i}-${crypto.randomUUID().slice(0, 8)}@example.com`,
          password: PASSWORD,
          full_name: "Scale",
        },
      });
      assert.equal(reg.status, 201, JSON.stringify(reg.body));
      const form = new FormData();
      form.append("file", new File([portrait as Uint8Array<ArrayBuffer>], "me.jpg", { type: "image/jpeg" }));
      const up = await fetch(`${server.url}/api/upload-photo`, {
        method: "POST",
        body: form,
        headers: { Authorization: `Bearer ${reg.body.access_token}` },
      });
      assert.equal(up.status, 201);
      return { server, token: reg.body.access_token as string, photoId: (await up.json()).photoId as string };
    }));
    const ids: string[] = [];
    const submit = async (i: number) => {
      const { server, token, photoId } = submitters[i % 2];
      const res = await json(server, "/api/generate", {
        token,
        body: { photoId, studioType: "makeup", options: { lips: LIPSTICK } },
      });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      ids.push(res.body.generationId);
    };
    // One job through each process first, and both finished, so both model workers are warm:
    // otherwise the process whose first detection is slower may find the queue already empty.
    await submit(0);
    await submit(1);
    await waitFor(
      "a first completion in each process",
      () => completedIn(a).length >= 1 && completedIn(b).length >= 1,
      { timeoutMs: 60_000 },
    );
    for (let i = 2; i < JOBS; i++) await submit(i);
    // kill -9 whichever process holds a running job, while it runs: one claimed since the last poll (5 ms
    // before), whose render has just begun. A job found running at any point could be committing as the kill
    // landed, and then the other process had nothing to take back.
    let before: Set<string> | undefined;
    const victim = await waitFor("a job just claimed", async () => {
      const rows = await sql`select id, claimed_by from generations where status = 'processing'`;
      const fresh = before && rows.find((r) => !before!.has(r.id));
      before = new Set(rows.map((r) => r.id as string));
      return fresh as { id: string; claimed_by: string } | undefined;
    }, { timeoutMs: 30_000, intervalMs: 5 });
    const victimPid = Number(victim.claimed_by.split(":").at(-1));
    Deno.kill(victimPid, "SIGKILL");
    const killedAt = Date.now();
    const alive = await waitFor("the surviving process", async () => {
      const answers = await Promise.all(
        servers.map((s) => fetch(`${s.url}/api/health`).then((r) => (r.body?.cancel(), true), () => false)),
      );
      return answers.filter(Boolean).length === 1 ? servers[answers.indexOf(true)] : undefined;
    }, { timeoutMs: 10_000 });
    const dead = alive === a ? b : a;

    await waitFor("every job finished", async () => {
      const [{ n }] =
        await sql`select count(*)::int as n from generations where status in ('completed', 'failed')`;
      return n === JOBS;
    }, { timeoutMs: 45_000, intervalMs: 100 });

    const rows = await sql`select id, status, attempts, error, completed_at from generations`;
    assert.equal(rows.length, JOBS);
    assert.deepEqual(
      rows.filter((r) => r.status !== "completed").map(({ completed_at: _, ...r }) => r),
      [],
      "every job completed",
    );
    // A process logs a completion just after committing it: the survivor's last line may still be on its way.
    const logged = () => [...completedIn(a), ...completedIn(b)];
    await waitFor("every completion's log line", () => new Set(logged()).size === JOBS, { timeoutMs: 5_000 })
      .catch(() => {});
    // Exactly once: no id has two completion lines across both processes.
    const done = logged();
    assert.equal(new Set(done).size, done.length, `a job completed twice: ${done.join(", ")}`);
    // A line can be missing only for a job the killed process committed as it was killed.
    const unlogged = rows.filter((r) => !done.includes(r.id));
    assert.ok(
      unlogged.length <= 1 && unlogged.every((r) => r.completed_at.getTime() <= killedAt + 1_000),
      `completed without a completion line: ${JSON.stringify(unlogged)} (killed at ${
        new Date(killedAt).toISOString()
      })`,
    );
    assert.deepEqual([...done, ...unlogged.map((r) => r.id)].sort(), [...ids].sort());
    // Both processes claimed work.
    assert.ok(
      completedIn(a).length > 0 && completedIn(b).length > 0,
      `split ${completedIn(a).length}/${completedIn(b).length}`,
    );
    // The job that died with its process was finished by the other, after the lease lapsed.
    assert.ok(completedIn(alive).includes(victim.id));
    assert.ok(!completedIn(dead).includes(victim.id));
    const [retaken] = await sql`select attempts, completed_at from generations where id = ${victim.id}`;
    assert.equal(retaken.attempts, 2);
    const waited = retaken.completed_at.getTime() - killedAt;
    assert.ok(waited < (LEASE_SECONDS + 10) * 1000, `retaken ${waited} ms after the kill`);
    console.log(
      `scale-out: ${completedIn(a).length}/${completedIn(b).length} jobs per process; ` +
        `the killed job completed ${waited} ms after kill -9 (lease ${LEASE_SECONDS} s)`,
    );

    // Results live in the shared store: the survivor serves the dead process's images too.
    const { token } = submitters[servers.indexOf(alive)];
    const status = await json(alive, `/api/generation/${victim.id}/status`, { token }).catch(() => undefined);
    const anyResult = status?.status === 200 ? status.body.resultUrl : (
      await json(alive, `/api/generation/${ids[servers.indexOf(alive)]}/status`, { token })
    ).body.resultUrl;
    const img = await fetch(`${alive.url}${anyResult}`);
    assert.equal(img.status, 200);
    assert.equal(img.headers.get("Content-Type"), "image/jpeg");
    await img.body?.cancel();
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await sql.end();
    await s3.close();
    await database.drop();
  }
});
