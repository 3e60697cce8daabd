/**
 * The dashboard API through the real app on PGlite and Postgres: profile
 * round trip and validation, mass assignment, the profile image (formats,
 * face framing, replacement), stats from a known history, and the history
 * list's status filter, credits and angles.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { users } from "../../db/schema.ts";
import { faceBoxes } from "../../server/imaging/square-portrait.ts";
import { INVALID_FILE_TYPE } from "../../server/photos/photos.schemas.ts";
import { PROFILE_COMPLETENESS_FIELDS } from "../../server/users/users.schemas.ts";
import { cropFace, DARK_HAIR, landscape, samplePath } from "../imaging/fixtures.ts";
import { backends } from "../helpers/backends.ts";
import { succeedingModel } from "../helpers/test-models.ts";
import { type Json, openTestContext, readResponse, type TestContext } from "../helpers/test-app.ts";

// ---------- fixtures ----------

const portrait = await cropFace(DARK_HAIR);
/** A wide photo with the face near its right edge: a centre crop would cut it in half. */
const offCentre = new Uint8Array(
  await sharp(samplePath(DARK_HAIR[0])).extract({ left: 69, top: 60, width: 1500, height: 900 })
    .jpeg({ quality: 92 }).toBuffer(),
);
const formats = {
  jpeg: portrait,
  png: new Uint8Array(await sharp(portrait).png().toBuffer()),
  webp: new Uint8Array(await sharp(portrait).webp().toBuffer()),
  gif: new Uint8Array(await sharp(portrait).gif().toBuffer()),
};
const scenery = await landscape();

const FULL_PROFILE = {
  first_name: "Ada",
  last_name: "Lovelace",
  phone: "+44 20 7946 0958",
  date_of_birth: "1990-12-10",
  gender: "female",
  location: "London",
  bio: "Analyst of engines.",
  styling_preferences: { palette: "warm", notes: ["bold lips"] },
  favorite_styles: ["soft-glam", "classic-bob"],
  color_preferences: ["red", "gold"],
};

// ---------- helpers ----------

async function uploadProfileImage(ctx: TestContext, token: string, bytes: Uint8Array, name = "me.jpg") {
  const form = new FormData();
  form.append(
    "file",
    new File([bytes as Uint8Array<ArrayBuffer>], name, { type: "application/octet-stream" }),
  );
  return await readResponse(
    await ctx.app.request("/api/users/profile/image", {
      method: "POST",
      body: form,
      headers: { Authorization: `Bearer ${token}` },
    }),
  );
}

async function getBytes(ctx: TestContext, path: string) {
  const res = await ctx.app.request(path);
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
}

async function uploadPhoto(ctx: TestContext, token: string): Promise<string> {
  const form = new FormData();
  form.append("file", new File([portrait as Uint8Array<ArrayBuffer>], "p.jpg", { type: "image/jpeg" }));
  const res = await readResponse(
    await ctx.app.request("/api/upload-photo", {
      method: "POST",
      body: form,
      headers: { Authorization: `Bearer ${token}`, "X-Forwarded-For": `10.9.${Math.random() * 250 | 0}.1` },
    }),
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.photoId;
}

async function generate(ctx: TestContext, token: string, photoId: string, body: Record<string, unknown>) {
  const res = await ctx.call("POST", "/api/generate", { token, body: { photoId, ...body } });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.generationId as string;
}

// ---------- the suite ----------

for (const backend of backends()) {
  Deno.test(
    { name: `[${backend.name}] users: profile, image, stats and history`, ignore: backend.skip },
    async (t) => {
      const ctx = await openTestContext(backend, { TRUST_PROXY: "true" }, {
        model: succeedingModel({ angles: ["front", "right", "left", "back"] }),
      });
      const db = ctx.database.db;
      try {
        await t.step("a new account's profile is empty; anonymous callers get 401", async () => {
          const { access_token } = await ctx.register();
          const res = await ctx.call("GET", "/api/users/profile", { token: access_token });
          assert.equal(res.status, 200);
          assert.deepEqual(res.body, {
            first_name: null,
            last_name: null,
            phone: null,
            date_of_birth: null,
            gender: null,
            location: null,
            bio: null,
            styling_preferences: {},
            favorite_styles: [],
            color_preferences: [],
            profile_image_url: null,
            updated_at: null,
          });
          for (
            const [method, path] of [
              ["GET", "/api/users/profile"],
              ["PUT", "/api/users/profile"],
              ["GET", "/api/users/stats"],
              ["POST", "/api/users/change-password"],
              ["GET", "/api/users/data-export"],
              ["DELETE", "/api/users/account"],
            ]
          ) {
            const anon = await ctx.call(method, path, { body: method === "GET" ? undefined : {} });
            assert.equal(anon.status, 401, `${method} ${path}`);
          }
        });

        await t.step(
          "round trip: every field saved and read back; absent keys keep their value",
          async () => {
            const { access_token: token } = await ctx.register();
            const put = await ctx.call("PUT", "/api/users/profile", { token, body: FULL_PROFILE });
            assert.equal(put.status, 200, JSON.stringify(put.body));
            const got = await ctx.call("GET", "/api/users/profile", { token });
            const { updated_at, profile_image_url, ...fields } = got.body;
            assert.deepEqual(fields, FULL_PROFILE);
            assert.equal(profile_image_url, null);
            assert.ok(!Number.isNaN(Date.parse(updated_at)));

            // A partial update changes only what it names; null and "" clear.
            const partial = await ctx.call("PUT", "/api/users/profile", {
              token,
              body: { bio: "  New bio  ", location: "", phone: null },
            });
            assert.equal(partial.status, 200);
            assert.equal(partial.body.bio, "New bio");
            assert.equal(partial.body.location, null);
            assert.equal(partial.body.phone, null);
            assert.equal(partial.body.first_name, "Ada");
            assert.deepEqual(partial.body.favorite_styles, FULL_PROFILE.favorite_styles);
          },
        );

        await t.step("a date of birth sent as an ISO date-time is stored as its date part", async () => {
          const { access_token: token } = await ctx.register();
          for (
            const [sent, stored] of [
              ["1990-02-03T00:00:00.000Z", "1990-02-03"],
              ["1985-11-30T23:15:00-05:00", "1985-11-30"],
              ["1979-07-01T12:00", "1979-07-01"],
            ]
          ) {
            const put = await ctx.call("PUT", "/api/users/profile", { token, body: { date_of_birth: sent } });
            assert.equal(put.status, 200, JSON.stringify(put.body));
            assert.equal(put.body.date_of_birth, stored);
            const got = await ctx.call("GET", "/api/users/profile", { token });
            assert.equal(got.body.date_of_birth, stored);
          }
          // The date part is checked as a date alone is: no 30 February, nothing in the future.
          for (const bad of ["1990-02-30T00:00:00Z", "1990-02-03T00:00:00Zjunk", `${"9".repeat(36)}`]) {
            const res = await ctx.call("PUT", "/api/users/profile", { token, body: { date_of_birth: bad } });
            assert.equal(res.status, 422, bad);
            assert.match(res.body.detail, /date_of_birth must be a date \(YYYY-MM-DD\)/);
          }
          const got = await ctx.call("GET", "/api/users/profile", { token });
          assert.equal(got.body.date_of_birth, "1979-07-01", "a refused value changed nothing");
        });

        await t.step("every bad value is a 422 naming its field, and changes nothing", async () => {
          const { access_token: token } = await ctx.register();
          await ctx.call("PUT", "/api/users/profile", { token, body: FULL_PROFILE });
          const future = new Date(Date.now() + 3 * 86400_000).toISOString().slice(0, 10);
          const cases: [unknown, RegExp][] = [
            [{ first_name: "x".repeat(51) }, /first_name must be at most 50 characters/],
            [{ last_name: 42 }, /last_name must be text/],
            [{ phone: "call me maybe" }, /phone must be a phone number/],
            [{ phone: "1".repeat(33) }, /phone must be at most 32 characters/],
            [{ date_of_birth: "10/12/1990" }, /date_of_birth must be a date \(YYYY-MM-DD\)/],
            [{ date_of_birth: "1990-02-30" }, /date_of_birth must be a date \(YYYY-MM-DD\)/],
            [{ date_of_birth: future }, /date_of_birth cannot be in the future/],
            [{ date_of_birth: "1850-01-01" }, /date_of_birth must give an age between 13 and 120/],
            [{ date_of_birth: new Date().toISOString().slice(0, 10) }, /date_of_birth must give an age/],
            [{ gender: "robot" }, /gender must be one of: male, female, other, prefer-not-to-say/],
            [{ location: "y".repeat(101) }, /location must be at most 100 characters/],
            [{ bio: "b".repeat(501) }, /bio must be at most 500 characters/],
            [{ styling_preferences: "warm" }, /styling_preferences must be an object/],
            [
              { styling_preferences: { big: "z".repeat(5000) } },
              /styling_preferences must be at most 4096 bytes/,
            ],
            [
              { styling_preferences: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 1])) },
              /styling_preferences must have at most 50 keys/,
            ],
            [
              // 2,000 levels fit in 4 KB and came back from the data export as 8 MB of indentation.
              { styling_preferences: { a: JSON.parse("[".repeat(2000) + "]".repeat(2000)) } },
              /styling_preferences must nest at most 8 levels deep/,
            ],
            [{ favorite_styles: "soft-glam" }, /favorite_styles must be a list of text/],
            [
              { favorite_styles: Array.from({ length: 21 }, (_, i) => `s${i}`) },
              /favorite_styles must have at most 20/,
            ],
            [
              { color_preferences: ["c".repeat(51)] },
              /color_preferences entries must be at most 50 characters/,
            ],
            [{ color_preferences: [""] }, /color_preferences entries cannot be empty/],
            [[1, 2], /The profile must be a JSON object/],
          ];
          for (const [body, detail] of cases) {
            const res = await ctx.call("PUT", "/api/users/profile", { token, body });
            assert.equal(res.status, 422, JSON.stringify(body));
            assert.match(res.body.detail, detail, JSON.stringify(body));
          }
          // Two bad fields: both are named.
          const two = await ctx.call("PUT", "/api/users/profile", { token, body: { bio: 1, gender: "x" } });
          assert.match(two.body.detail, /gender/);
          assert.match(two.body.detail, /bio/);
          const after = await ctx.call("GET", "/api/users/profile", { token });
          const { updated_at: _u, profile_image_url: _p, ...fields } = after.body;
          assert.deepEqual(fields, FULL_PROFILE, "no partial write");
          // Not JSON at all.
          const text = await ctx.call("PUT", "/api/users/profile", {
            token,
            body: "first_name=x",
            headers: { "Content-Type": "text/plain" },
          });
          assert.equal(text.status, 415);
        });

        await t.step("mass assignment: credits, role, email and ids in the body are ignored", async () => {
          const me = await ctx.register();
          const token = me.access_token;
          const before = (await db.select().from(users).where(eq(users.id, me.user.id)))[0];
          const res = await ctx.call("PUT", "/api/users/profile", {
            token,
            body: {
              first_name: "Grace",
              credits: 999999,
              role: "admin",
              email: "attacker@example.com",
              is_verified: true,
              is_active: false,
              user_id: crypto.randomUUID(),
              profile_image_url: "https://evil.example/x.png",
              password_hash: "x",
            },
          });
          assert.equal(res.status, 200);
          assert.equal(res.body.first_name, "Grace");
          assert.equal(res.body.profile_image_url, null);
          const after = (await db.select().from(users).where(eq(users.id, me.user.id)))[0];
          assert.deepEqual(after, before, "the user row is untouched");
          const meNow = await ctx.call("GET", "/api/users/me", { token });
          assert.equal(meNow.body.credits, me.user.credits);
          assert.equal(meNow.body.role, "user");
          assert.equal(meNow.body.email, me.user.email);
        });

        await t.step(
          "profile image: JPEG, PNG, WebP and GIF become a 512 px square JPEG; a non-image is 415",
          async () => {
            const { access_token: token } = await ctx.register();
            let previous: string | null = null;
            for (const [format, bytes] of Object.entries(formats)) {
              const res = await uploadProfileImage(ctx, token, bytes, `me.${format}`);
              assert.equal(res.status, 200, `${format}: ${JSON.stringify(res.body)}`);
              const url: string = res.body.image_url;
              assert.match(url, /^\/api\/uploads\/[0-9a-f]{32}\.jpg$/, format);
              const img = await getBytes(ctx, url);
              assert.equal(img.status, 200);
              const meta = await sharp(img.bytes).metadata();
              assert.equal(meta.format, "jpeg");
              assert.equal(meta.width, 512, format);
              assert.equal(meta.height, 512, format);
              const me = await ctx.call("GET", "/api/users/me", { token });
              assert.equal(me.body.profile_image_url, url);
              const profile = await ctx.call("GET", "/api/users/profile", { token });
              assert.equal(profile.body.profile_image_url, url);
              if (previous) {
                // The old picture is gone from disk and from the URL.
                assert.equal(await ctx.storage.get(previous.slice(previous.lastIndexOf("/") + 1)), null);
                assert.equal((await getBytes(ctx, previous)).status, 404);
              }
              previous = url;
            }
            for (
              const [name, bytes] of [
                ["notes.txt", new TextEncoder().encode("not an image at all")],
                ["fake.jpg", new Uint8Array([0xff, 0xd8, 0xff, 0x00, 1, 2, 3])],
                [
                  "damaged.png",
                  new Uint8Array([
                    0x89,
                    0x50,
                    0x4e,
                    0x47,
                    0x0d,
                    0x0a,
                    0x1a,
                    0x0a,
                    ...new Uint8Array(64).fill(120),
                  ]),
                ],
              ] as const
            ) {
              // The photo upload's answers, text and code, for the same faults.
              const bad = await uploadProfileImage(ctx, token, bytes, name);
              if (name !== "damaged.png") {
                assert.equal(bad.status, 415, name);
                assert.deepEqual(
                  bad.body,
                  { detail: INVALID_FILE_TYPE, code: "unsupported_media_type" },
                  name,
                );
              } else {
                assert.equal(bad.status, 422, `${name}: ${JSON.stringify(bad.body)}`);
                assert.match(bad.body.detail, /^Unreadable Image: the file looks damaged/);
              }
            }
            const me = await ctx.call("GET", "/api/users/me", { token });
            assert.equal(me.body.profile_image_url, previous, "a refused upload keeps the picture");
            const none = await readResponse(
              await ctx.app.request("/api/users/profile/image", {
                method: "POST",
                body: new FormData(),
                headers: { Authorization: `Bearer ${token}` },
              }),
            );
            assert.equal(none.status, 422);
          },
        );

        await t.step("profile image: the square is framed on the face, even far off-centre", async () => {
          const { access_token: token } = await ctx.register();
          const res = await uploadProfileImage(ctx, token, offCentre);
          assert.equal(res.status, 200);
          const img = await getBytes(ctx, res.body.image_url);
          const faces = await faceBoxes(img.bytes);
          assert.ok(faces && faces.length >= 1, "the face is in the picture");
          const [x, y, w, h] = faces[0];
          const cx = (x + w / 2) / 512, cy = (y + h / 2) / 512;
          assert.ok(cx > 0.35 && cx < 0.65, `face centre x ${cx.toFixed(2)}`);
          assert.ok(cy > 0.3 && cy < 0.7, `face centre y ${cy.toFixed(2)}`);
          assert.ok(w / 512 > 0.3, `face fills the picture (${(w / 512).toFixed(2)})`);
          // No face: still a square picture, not an error.
          const plain = await uploadProfileImage(ctx, token, scenery);
          assert.equal(plain.status, 200);
          const meta = await sharp((await getBytes(ctx, plain.body.image_url)).bytes).metadata();
          assert.equal(meta.width, 512);
          assert.equal(meta.height, 512);
        });

        await t.step("stats come from the user's own history", async () => {
          const me = await ctx.register();
          const other = await ctx.register();
          const token = me.access_token;
          const empty = await ctx.call("GET", "/api/users/stats", { token });
          assert.deepEqual(empty.body, {
            total_generations: 0,
            completed_generations: 0,
            available_credits: me.user.credits,
            favorite_styles: [],
            profile_completeness: 0,
          });

          const photo = await uploadPhoto(ctx, token);
          await generate(ctx, token, photo, {
            studioType: "makeup",
            options: { lips: "classic-red-matte", eyeshadow: "champagne" },
          });
          await generate(ctx, token, photo, { studioType: "makeup", options: { lips: "classic-red-matte" } });
          await generate(ctx, token, photo, {
            studioType: "hair",
            options: { hairColor: "jet-black", lips: "classic-red-matte" },
          });
          await ctx.drain();
          await generate(ctx, token, photo, { studioType: "hair", options: { hairColor: "jet-black" } }); // queued
          // Another user's history changes nothing here.
          const otherPhoto = await uploadPhoto(ctx, other.access_token);
          await generate(ctx, other.access_token, otherPhoto, {
            studioType: "barber",
            options: { facialHair: "stubble" },
          });

          // Half the profile: 4 of the 8 counted fields.
          await ctx.call("PUT", "/api/users/profile", {
            token,
            body: { first_name: "A", last_name: "B", gender: "other", location: "Paris" },
          });
          const stats = await ctx.call("GET", "/api/users/stats", { token });
          assert.equal(stats.status, 200);
          assert.deepEqual(stats.body, {
            total_generations: 4,
            completed_generations: 3,
            available_credits: me.user.credits - 8,
            favorite_styles: [
              { option: "lips", value: "classic-red-matte", label: "Classic Red (Matte)", count: 3 },
              { option: "hairColor", value: "jet-black", label: "Jet Black", count: 2 },
              { option: "eyeshadow", value: "champagne", label: "Champagne Shimmer", count: 1 },
            ],
            profile_completeness: Math.round(4 / PROFILE_COMPLETENESS_FIELDS.length * 100),
          });
          await ctx.drain();
        });

        await t.step("history: newest first, status filter, credits charged and every angle", async () => {
          const me = await ctx.register();
          const token = me.access_token;
          const photo = await uploadPhoto(ctx, token);
          const first = await generate(ctx, token, photo, {
            studioType: "makeup",
            view360: true,
            options: {
              lips: "classic-red-matte",
              eyeshadow: "champagne",
              cheeks: "soft-peach",
              extras: "highlighter",
            },
          });
          await ctx.drain();
          const second = await generate(ctx, token, photo, {
            studioType: "hair",
            options: { hairColor: "jet-black" },
          });

          const all = await ctx.call("GET", "/api/generations", { token });
          assert.equal(all.status, 200);
          assert.deepEqual(all.body.items.map((i: Json) => i.id), [second, first]);
          const done = all.body.items[1];
          assert.equal(done.status, "completed");
          assert.equal(done.credits_charged, 2);
          assert.deepEqual(Object.keys(done.result_urls).sort(), ["back", "front", "left", "right"]);
          assert.equal(done.result_url, done.result_urls.front);
          for (const url of Object.values(done.result_urls) as string[]) {
            assert.equal((await getBytes(ctx, url)).status, 200);
          }
          assert.deepEqual(done.chosen_options, [
            { key: "eyeshadow", label: "Champagne Shimmer" },
            { key: "lips", label: "Classic Red (Matte)" },
            { key: "cheeks", label: "Soft Peach" },
            { key: "extras", label: "Highlighter" },
          ]);
          assert.deepEqual(all.body.items[0].result_urls, {});
          assert.equal(all.body.items[0].status, "queued");

          const completed = await ctx.call("GET", "/api/generations?status=completed", { token });
          assert.deepEqual(completed.body.items.map((i: Json) => i.id), [first]);
          const waiting = await ctx.call("GET", "/api/generations?status=queued,processing", { token });
          assert.deepEqual(waiting.body.items.map((i: Json) => i.id), [second]);
          const bad = await ctx.call("GET", "/api/generations?status=done", { token });
          assert.equal(bad.status, 422);
          assert.match(bad.body.detail, /status must be one of: queued, processing, completed, failed/);
          await ctx.drain();
        });
      } finally {
        await ctx.close();
      }
    },
  );
}
