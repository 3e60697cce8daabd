/** Chooses the blob storage from config.STORAGE: local disk under DATA_DIR/uploads, or S3. */
import { join } from "node:path";
import type { Config } from "../config.ts";
import { LocalDiskStorage } from "./local-disk-storage.ts";
import type { BlobStorage } from "./storage.ts";

/**
 * The AWS SDK is loaded only when S3 is configured: imported by every process it cost ~30 MB of
 * resident memory (and start-up time) on the embedded default, which never calls it.
 */
export async function createStorage(
  config: Pick<Config, "dataDir" | "storage" | "s3">,
): Promise<BlobStorage> {
  if (config.storage === "s3" && config.s3) {
    const { S3Storage } = await import("./s3-storage.ts");
    return new S3Storage(config.s3);
  }
  return new LocalDiskStorage(join(config.dataDir, "uploads"));
}
