import assert from "node:assert/strict";
import { clearFieldError, validateLogin, validateRegister } from "../../client/features/auth/validation.ts";
import { validatePhotoFile } from "../../client/lib/photo-rules.ts";

const good = {
  full_name: "Ada Lovelace",
  email: "ada@example.com",
  password: "Secret123!",
  confirmPassword: "Secret123!",
};

Deno.test("login: required and format messages, word for word", () => {
  assert.deepEqual(validateLogin({ email: "", password: "" }), {
    email: "Email is required",
    password: "Password is required",
  });
  assert.deepEqual(validateLogin({ email: "ada", password: "x" }), {
    email: "Email is invalid",
  });
  assert.deepEqual(validateLogin({ email: "a@b.co", password: "x" }), {});
});

Deno.test("register: each rule and its message", () => {
  assert.deepEqual(validateRegister(good), {});
  assert.equal(
    validateRegister({ ...good, full_name: "   " }).full_name,
    "Full name is required",
  );
  assert.equal(validateRegister({ ...good, email: "" }).email, "Email is required");
  assert.equal(
    validateRegister({ ...good, email: "nope@" }).email,
    "Email is invalid",
  );
  assert.equal(
    validateRegister({ ...good, password: "", confirmPassword: "" }).password,
    "Password is required",
  );
  assert.equal(
    validateRegister({ ...good, password: "Ab1!", confirmPassword: "Ab1!" })
      .password,
    "Password must be at least 8 characters",
  );
  for (const weak of ["alllower1!", "ALLUPPER1!", "NoDigits!!", "NoSpecial12"]) {
    assert.equal(
      validateRegister({ ...good, password: weak, confirmPassword: weak })
        .password,
      "Password must contain uppercase, lowercase, number, and special character",
      weak,
    );
  }
  assert.equal(
    validateRegister({ ...good, confirmPassword: "" }).confirmPassword,
    "Please confirm your password",
  );
  assert.equal(
    validateRegister({ ...good, confirmPassword: "Secret123?" }).confirmPassword,
    "Passwords do not match",
  );
});

Deno.test("an error clears when its field is edited", () => {
  const errors = { email: "Email is required", password: "Password is required" };
  assert.deepEqual(clearFieldError(errors, "email"), {
    password: "Password is required",
  });
  assert.equal(clearFieldError(errors, "full_name" as never), errors);
});

Deno.test("photo upload: type and 10 MB limit with the product's toasts", () => {
  assert.deepEqual(validatePhotoFile({ type: "text/plain", size: 10 }), {
    title: "Invalid File Type",
    description: "Please upload an image file.",
  });
  assert.deepEqual(validatePhotoFile({ type: "image/png", size: 10485761 }), {
    title: "File Too Large",
    description: "Please upload an image smaller than 10MB.",
  });
  assert.equal(validatePhotoFile({ type: "image/jpeg", size: 10485760 }), null);
});
