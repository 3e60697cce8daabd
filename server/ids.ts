/**
 * Row ids as the database parses them, checked in one place. Ids reach the
 * server from URLs, bodies and cursors; testing them before a lookup makes a
 * malformed one a 404 or 422, never a 500 from Postgres' uuid parser.
 *
 * z.guid() rather than z.uuid(): Postgres accepts any 8-4-4-4-12 hex string,
 * not only RFC 9562 versions and variants, and an id the database could hold
 * must not be refused as malformed.
 */
import * as z from "zod";

const uuidSchema = z.guid();

export function isUuid(value: unknown): value is string {
  return uuidSchema.safeParse(value).success;
}
