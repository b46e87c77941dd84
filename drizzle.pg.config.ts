// drizzle-kit for the PostgreSQL migrations (drizzle/pg). The schema is the same files as SQLite's:
// src/db/dialect.ts builds pg-core tables when DATABASE_URL names PostgreSQL, so generate with
//   DATABASE_URL=postgres://localhost/x bunx drizzle-kit generate --config drizzle.pg.config.ts
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle/pg',
})
