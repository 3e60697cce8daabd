/**
 * Old background kept in the cut-out where the selfie model half takes an object beside the
 * person (`deno run -A bench/background-objects.bench.ts`), before and after the background-object
 * pass (see backgroundObjects in matte-refine.ts; "before" is the same code with the plan taken as
 * checked, which is what refineMatte did until then), at 1080x1920:
 * - the bench portrait (@vladmandic/face-api's demo sample6, cropFace(DARK_HAIR), test-only data in
 *   node_modules, cropped at run time): the golden wooden window frame left of her hair, a
 *   hand-traced polygon (WOOD in the test, relative to the detected face box; traced 20-40 px clear
 *   of the hair): its pixels with alpha > 0.5 (target 0); her hair on that side (HAIR, traced
 *   inside its edge) kept (target: as before), and what else was dropped;
 * - the synthetic portrait of tests/imaging/background-objects.test.ts (a wooden upright beside
 *   the hair, half taken by the model): the object and the hair kept;
 * - every frontal test face at the two crops of the look montage (cropFace 0.75 / 2.2 and
 *   0.6 / 3.2): the area that changes (alpha > 0.5 before, not after, and the reverse), in face
 *   widths squared, with BENCH_OUT=<dir> overlays of the dropped pixels to look at;
 * - time: refineMatte with a plan made without the pixels (the check, and a new plan when
 *   something is dropped) against one already checked, and the full look (Evening Glam, Auburn,
 *   Beach Sunset, intensity 60) at 1080x1920, medians of RUNS (printed beside the load average).
 */
import sharp from "sharp";
import { FaceEngine } from "../server/imaging/local/face-engine.ts";
import { render } from "../server/imaging/local/render.ts";
import { planMatte, refineMatte } from "../server/imaging/local/matte-refine.ts";
import type { Canvas } from "../server/imaging/local/blend.ts";
import { percentile } from "./stats.ts";
import { cropFace, DARK_HAIR, FRONTAL_FACES, job } from "../tests/imaging/fixtures.ts";
import { framedCrop } from "../tests/imaging/framed-crop.ts";
import {
  alphaWithout,
  HAIR,
  inObject,
  inPolygon,
  keptShare,
  perPixel,
  SYN_FACE,
  SYN_H,
  SYN_W,
  synthetic,
  WOOD,
} from "../tests/imaging/background-objects.test.ts";

const RUNS = Number(Deno.env.get("BENCH_RUNS") ?? 9);
const OUT = Deno.env.get("BENCH_OUT");
const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const W = 1080, H = 1920;

const engine = await FaceEngine.load();

function both(framed: Canvas, c: NonNullable<Awaited<ReturnType<typeof framedCrop>>>) {
  const plan = planMatte(framed, c.person, c.g.center);
  plan.checked = true;
  const before = perPixel(refineMatte(framed, c.person, c.g.center, plan));
  const after = perPixel(refineMatte(framed, c.person, c.g.center));
  return { before, after };
}

console.log(`load ${load()}`);

// The bench portrait.
{
  const c = (await framedCrop(engine, await cropFace(DARK_HAIR)))!;
  const { before, after } = both(c.framed, c);
  const [bx, by, bw, bh] = c.box;
  let wood = 0, woodBefore = 0, woodAfter = 0, ownBefore = 0, ownAfter = 0, lost = 0;
  let hair = 0, hairBefore = 0, hairAfter = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const a0 = before(x, y) > 0.5, a1 = after(x, y) > 0.5;
      const u = (x + 0.5 - bx) / bw, v = (y + 0.5 - by) / bh;
      if (inPolygon(u, v, WOOD)) {
        wood++;
        if (a0) woodBefore++;
        if (a1) woodAfter++;
        continue;
      }
      if (a0) ownBefore++;
      if (a1) ownAfter++;
      if (a0 && !a1) lost++;
      if (inPolygon(u, v, HAIR)) {
        hair++;
        if (a0) hairBefore++;
        if (a1) hairAfter++;
      }
    }
  }
  const pct = (v: number, n: number) => `${(100 * v / n).toFixed(1)}%`;
  console.log(
    `sample6 (DARK_HAIR) wooden frame, ${wood} px traced: kept ${woodBefore} -> ${woodAfter} px (${
      pct(woodBefore, wood)
    } -> ${pct(woodAfter, wood)}; target 0)`,
  );
  console.log(
    `  her hair on that side, ${hair} px traced: kept ${pct(hairBefore, hair)} -> ${pct(hairAfter, hair)}; ` +
      `the cut-out outside the frame's polygon: ${ownBefore} -> ${ownAfter} px, ${lost} px dropped ` +
      `(the frame's wood between the polygon and the hair)`,
  );
}

// The synthetic portrait.
{
  const { img, person } = synthetic();
  const before = alphaWithout(img, person, SYN_FACE);
  const after = refineMatte(img, person, SYN_FACE).alpha;
  const obj = (x: number, y: number) => inObject(x, y);
  const { truth } = synthetic();
  const own = (x: number, y: number) => truth[y * SYN_W + x] === 1;
  const pct = (v: number) => `${(100 * v).toFixed(1)}%`;
  console.log(
    `synthetic wooden upright beside the hair: object kept ${pct(keptShare(before, SYN_W, SYN_H, obj))} -> ${
      pct(keptShare(after, SYN_W, SYN_H, obj))
    }, person kept ${pct(keptShare(before, SYN_W, SYN_H, own))} -> ${
      pct(keptShare(after, SYN_W, SYN_H, own))
    }`,
  );
}

// Every frontal face at the montage's two crops.
for (const f of FRONTAL_FACES) {
  for (const [aspect, span] of [[0.75, 2.2], [0.6, 3.2]]) {
    const c = await framedCrop(engine, await cropFace(f, aspect, span));
    const name = `sample${f[0]}@${f[1]} ${span}`;
    if (!c) {
      console.log(`${name}: no face`);
      continue;
    }
    const { before, after } = both(c.framed, c);
    let dropped = 0, added = 0;
    const over = OUT ? new Uint8Array(c.framed.data) : undefined;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const a0 = before(x, y) > 0.5, a1 = after(x, y) > 0.5;
        if (a0 && !a1) dropped++;
        if (a1 && !a0) added++;
        if (over && a0 !== a1) over.set(a0 ? [255, 0, 255] : [0, 255, 0], (y * W + x) * 3);
      }
    }
    const fw2 = c.g.fw * c.g.fw;
    console.log(`${name}: dropped ${(dropped / fw2).toFixed(3)} fw² (${dropped} px), added ${added} px`);
    if (over && dropped + added > 0) {
      await sharp(over, { raw: { width: W, height: H, channels: 3 } }).resize(540, 960).jpeg().toFile(
        `${OUT}/objects-s${f[0]}-${f[1]}-${span}.jpg`,
      );
    }
  }
}

// Time.
{
  const c = (await framedCrop(engine, await cropFace(DARK_HAIR)))!;
  const checkedMs: number[] = [], uncheckedMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const checked = planMatte(c.framed, c.person, c.g.center);
    checked.checked = true;
    const unchecked = planMatte(c.framed, c.person, c.g.center);
    let t = performance.now();
    refineMatte(c.framed, c.person, c.g.center, checked);
    checkedMs.push(performance.now() - t);
    t = performance.now();
    refineMatte(c.framed, c.person, c.g.center, unchecked);
    uncheckedMs.push(performance.now() - t);
  }
  const med = (v: number[]) => percentile(v, 50).toFixed(1);
  console.log(
    `refineMatte at 1080x1920 (sample6), median of ${RUNS}: plan checked ${med(checkedMs)} ms, ` +
      `plan to check (a frame dropped, a new plan) ${med(uncheckedMs)} ms; load ${load()}`,
  );
  const photo = await cropFace(DARK_HAIR);
  const I = { lookStyle: 60, eyeshadow: 60, lips: 60, baseMakeup: 60, cheeks: 60, extras: 60 };
  const look = { lookStyle: "evening-glam", hairColor: "auburn", setting: "beach-sunset" };
  const lookMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await render(engine, job(photo, look as never, I as never, "makeup"));
    lookMs.push(performance.now() - t);
  }
  console.log(
    `full look at 1080x1920 (sample6), median of ${RUNS}: ${med(lookMs)} ms (target <= 1500); load ${load()}`,
  );
}
Deno.exit(0);
