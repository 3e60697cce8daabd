/** Chooses the blob storage from config.STORAGE: local disk under DATA_DIR/uploads, or S3. */
import { join } from "node:path";
import type { Config } from "../config.ts";
import { LocalDiskStorage } from "./local-disk-storage.ts";
import { S3Storage } from "./s3-storage.ts";
import type { BlobStorage } from "./storage.ts";

export function createStorage(config: Pick<Config, "dataDir" | "storage" | "s3">): BlobStorage {
  if (config.storage === "s3" && config.s3) return new S3Storage(config.s3);
  return new LocalDiskStorage(join(config.dataDir, "uploads"));
}
