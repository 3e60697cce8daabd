/** The common-password refusal: the worst passwords of a leaked-password list, not strong ones. */
import assert from "node:assert/strict";
import { isCommonPassword } from "../../server/auth/common-passwords.ts";

Deno.test("common passwords: Password1! and its disguises are refused", () => {
  for (
    const p of [
      "Password1!",
      "password",
      "P@ssw0rd2024!",
      "Qwerty123!",
      "Letmein1!",
      "Iloveyou2!",
      "Dragon99$",
    ]
  ) {
    assert.equal(isCommonPassword(p), true, p);
  }
});

Deno.test("common passwords: strong or uncommon passwords pass", () => {
  for (
    const p of ["Sup3r$ecret", "Another1!pw", "Tr0ub4dor&3x", "correct-Horse-battery-9!", "Zq8!mVx2@kLp"]
  ) {
    assert.equal(isCommonPassword(p), false, p);
  }
});

Deno.test("common passwords: a 256-character password is judged quickly", () => {
  const started = performance.now();
  assert.equal(isCommonPassword("1".repeat(255) + "a"), false);
  assert.ok(performance.now() - started < 50);
});
