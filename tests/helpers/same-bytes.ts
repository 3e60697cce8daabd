/**
 * Byte-for-byte equality of two images or files. A failing `assert.deepEqual` between two large byte arrays
 * does not fail quickly: it diffs them element by element and the test process runs out of memory (24 GB
 * RSS on a pair of 70 KB JPEGs, killed with no test output). This names the first differing byte instead.
 */
import assert from "node:assert/strict";
import sharp from "sharp";

export function assertSameBytes(
  actual: Uint8Array,
  expected: Uint8Array,
  message = "the bytes differ",
): void {
  if (actual.length === expected.length && actual.every((v, i) => v === expected[i])) return;
  const at = actual.findIndex((v, i) => v !== expected[i]);
  assert.fail(
    `${message}: ${actual.length} bytes against ${expected.length}, first difference at byte ${
      at < 0 ? Math.min(actual.length, expected.length) : at
    }`,
  );
}

/**
 * assertSameBytes for two encoded images of one size; when they differ, the message also says where their pixels
 * do (how many, their bounding box and the largest channel difference), so a failure seen once under load can be
 * traced to a stage (a matte's edge, the lips, the whole frame).
 */
export async function assertSameImage(
  actual: Uint8Array,
  expected: Uint8Array,
  message = "the images differ",
): Promise<void> {
  if (actual.length === expected.length && actual.every((v, i) => v === expected[i])) return;
  const raw = (img: Uint8Array) => sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const [a, e] = await Promise.all([raw(actual), raw(expected)]);
  let where = `sizes ${a.info.width}x${a.info.height} and ${e.info.width}x${e.info.height}`;
  if (a.info.width === e.info.width && a.info.height === e.info.height) {
    const w = a.info.width, ch = a.info.channels;
    let n = 0, most = 0, x0 = w, y0 = a.info.height, x1 = -1, y1 = -1;
    for (let k = 0; k < a.data.length; k += ch) {
      let d = 0;
      for (let c = 0; c < ch; c++) d = Math.max(d, Math.abs(a.data[k + c] - e.data[k + c]));
      if (d === 0) continue;
      const x = (k / ch) % w, y = Math.floor(k / ch / w);
      n++, most = Math.max(most, d);
      x0 = Math.min(x0, x), y0 = Math.min(y0, y), x1 = Math.max(x1, x), y1 = Math.max(y1, y);
    }
    where = n === 0
      ? "the same pixels"
      : `${n} pixels differ, within x ${x0}-${x1}, y ${y0}-${y1}, by up to ${most} levels`;
  }
  assert.fail(`${message}: ${actual.length} bytes against ${expected.length}; ${where}`);
}
