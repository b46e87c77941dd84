// The API suite's second run, on PostgreSQL: starts a throwaway cluster (src/test-support/postgres.ts),
// runs the same `bun test` files against it and stops it, whatever the outcome.
//   bun scripts/test-pg.ts [bun test args…]     e.g. bun scripts/test-pg.ts src/billing
// Test servers (startServer) each get their own database through TEST_PG_ADMIN_URL; code that
// opens the database in the test process itself reads DATABASE_URL, a fresh database here.
import { startPostgres } from '../src/test-support/postgres'

const pg = await startPostgres()
let code = 1
const stop = async () => {
  await pg.stop().catch((e) => console.error('[test:pg] stopping PostgreSQL failed:', e))
}
// Ctrl-C / CI cancellation: the child gets the signal too; the cluster must not outlive us.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    await stop()
    process.exit(130)
  })
}
try {
  const databaseUrl = await pg.createDatabase()
  console.log(`[test:pg] PostgreSQL at ${pg.url}; DATABASE_URL=${databaseUrl}`)
  const proc = Bun.spawn(['bun', 'test', '--timeout', '20000', ...process.argv.slice(2)], {
    env: { ...process.env, TEST_PG_ADMIN_URL: pg.url, DATABASE_URL: databaseUrl },
    stdio: ['inherit', 'inherit', 'inherit'],
  })
  code = await proc.exited
} finally {
  await stop()
}
process.exit(code)
