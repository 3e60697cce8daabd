/**
 * Byte-for-byte equality of two images or files. A failing `assert.deepEqual` between two large byte arrays
 * does not fail quickly: it diffs them element by element and the test process runs out of memory (24 GB
 * RSS on a pair of 70 KB JPEGs, killed with no test output). This names the first differing byte instead.
 */
import assert from "node:assert/strict";

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
