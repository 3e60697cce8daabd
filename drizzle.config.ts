// Used only by `deno task db:generate` (drizzle-kit) to write SQL migrations from db/schema.ts.
export default {
  dialect: "postgresql",
  schema: "./db/schema.ts",
  out: "./migrations",
};
