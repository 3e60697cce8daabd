/**
 * The old background's halo along the person's outline on real photos (`deno run -A
 * bench/halo.bench.ts`): every frontal test face (tests/imaging/fixtures.ts, @vladmandic/face-api's
 * demo photos, test-only data cropped at run time) at the default crop, composed at 1080x1920 over
 * Beach Sunset and Studio Grey. Per crop and backdrop, on the head's outline (see haloFigures in
 * tests/imaging/halo.test.ts): the ΔE between the mean colour of the band 1-6 px outside the
 * refined matte's 0.5 contour and the backdrop's (target 6), the band's mean per-pixel ΔE and its
 * share above 10, and the mean ΔE of the partial-alpha pixels from the blend of the local person
 * colour and the backdrop, and the rim inside (L* 1-6 px inside the contour less L* 12-24 px
 * inside: a pale rim of the old background's light). Then refineMatte and composeRefined at 1080x1920 (sample6@1402), medians
 * of RUNS beside the load average. BENCH_OUT=<dir> writes each composite (JPEG, full size).
 */
import sharp from "sharp";
import { FaceEngine } from "../server/imaging/local/face-engine.ts";
import { composeRefined, refineMatte } from "../server/imaging/local/matte-refine.ts";
import { percentile } from "./stats.ts";
import { cropFace, FRONTAL_FACES } from "../tests/imaging/fixtures.ts";
import { haloOf } from "../tests/imaging/halo.test.ts";
import { framedCrop } from "../tests/imaging/framed-crop.ts";
import { renderBackdrop } from "../server/imaging/local/scene.ts";

const RUNS = Number(Deno.env.get("BENCH_RUNS") ?? 9);
const OUT = Deno.env.get("BENCH_OUT");
const SETTINGS = ["beach-sunset", "studio-grey"];
const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const engine = await FaceEngine.load();

console.log(`load ${load()}`);
console.log("crop            backdrop      band ΔE(means)  band ΔE/px  band >10  edge off blend  rim ΔL*");
const sums = SETTINGS.map(() => [0, 0, 0, 0, 0, 0]);
for (const f of FRONTAL_FACES) {
  for (const [si, setting] of SETTINGS.entries()) {
    const r = await haloOf(engine, f, setting);
    const name = `sample${f[0]}@${f[1]}`;
    if (!r) {
      console.log(`${name}: no face`);
      continue;
    }
    const h = r.figures;
    console.log(
      `${name.padEnd(15)} ${setting.padEnd(13)} ${h.bandMean.toFixed(2).padStart(14)} ${
        h.band.toFixed(2).padStart(11)
      } ${(100 * h.bandOff).toFixed(1).padStart(8)}% ${h.line.toFixed(2).padStart(14)} ${
        h.rimL.toFixed(1).padStart(8)
      }`,
    );
    const s = sums[si];
    s[0] += h.bandMean;
    s[1] += h.band;
    s[2] += h.bandOff;
    s[3] += h.line;
    s[4]++;
    s[5] += h.rimL;
    if (OUT) {
      await sharp(r.img.data, { raw: { width: r.img.width, height: r.img.height, channels: 3 } }).jpeg({
        quality: 92,
      }).toFile(`${OUT}/halo-s${f[0]}-${f[1]}-${setting}.jpg`);
    }
  }
}
for (const [si, setting] of SETTINGS.entries()) {
  const [a, b, c, d, n, e] = sums[si];
  console.log(
    `mean of ${n} crops, ${setting}: band ΔE of means ${(a / n).toFixed(2)}, per pixel ${
      (b / n).toFixed(2)
    }, ` +
      `>10 ${(100 * c / n).toFixed(1)}%, edge off the blend ${(d / n).toFixed(2)}, rim ΔL* ${
        (e / n).toFixed(1)
      }`,
  );
}

// Time: refineMatte (a plan made each time, checked with the pixels) and composeRefined.
{
  const c = (await framedCrop(engine, await cropFace(FRONTAL_FACES[14])))!;
  const bg = await renderBackdrop({ id: "beach-sunset" }, c.framed.width, c.framed.height, c.g.center);
  const refineMs: number[] = [], composeMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    const m = refineMatte(c.framed, c.person, c.g.center);
    refineMs.push(performance.now() - t);
    const img = { ...c.framed, data: c.framed.data.slice() };
    t = performance.now();
    composeRefined(img, m, bg, [1.02, 1, 0.97]);
    composeMs.push(performance.now() - t);
  }
  const med = (v: number[]) => percentile(v, 50).toFixed(1);
  console.log(
    `sample6@1402 at 1080x1920, median of ${RUNS}: refineMatte ${med(refineMs)} ms, composeRefined ${
      med(composeMs)
    } ms; load ${load()}`,
  );
}
Deno.exit(0);
