/**
 * argon2id via @node-rs/argon2 (native; hashing runs on libuv's pool, off the
 * event loop). Parameters: OWASP's argon2id minimum (19 MiB, t=2, p=1).
 */
import { hash, verify } from "@node-rs/argon2";

const OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(
  hashed: string,
  password: string,
): Promise<boolean> {
  try {
    return await verify(hashed, password);
  } catch {
    return false;
  }
}

/**
 * A fixed hash to verify against when the email is unknown, so a failed
 * login takes the same time whether or not the account exists.
 */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword("not-a-real-password-Aa1!");
  return dummyHash;
}
