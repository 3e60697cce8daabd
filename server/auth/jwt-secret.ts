/**
 * The JWT signing secret: JWT_SECRET when set (required in production),
 * otherwise one generated on first start and kept in DATA_DIR, so sessions
 * survive restarts of a development install.
 */
import { join } from "node:path";
import type { Config } from "../config.ts";
import { encodeHex } from "../hex-digest.ts";

export async function loadJwtSecret(
  config: Pick<Config, "jwtSecret" | "dataDir">,
): Promise<string> {
  if (config.jwtSecret) return config.jwtSecret;
  const path = join(config.dataDir, "jwt-secret");
  try {
    const existing = (await Deno.readTextFile(path)).trim();
    if (existing.length >= 32) return existing;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  await Deno.mkdir(config.dataDir, { recursive: true });
  const secret = encodeHex(crypto.getRandomValues(new Uint8Array(32)));
  await Deno.writeTextFile(path, secret, { mode: 0o600 });
  return secret;
}
