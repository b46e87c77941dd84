// The upgrade of issue 23: a key's monthly limit becomes its budget with period "month", and what the
// key already spent this Moscow month counts as spent — nobody's limit resets on upgrade. The
// migrations are applied in two steps around data written in the old shape, on the store this run
// uses (SQLite here, PostgreSQL in the PostgreSQL run).
import { expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { migrate as migratePg } from 'drizzle-orm/bun-sql/migrator'
import { migrate as migrateLite } from 'drizzle-orm/bun-sqlite/migrator'
import { openDatabase } from '../db/client'
import { onPostgres } from '../db/dialect'
import { selectRows } from '../db/sql'
import { periodStart } from '../money'
import { freshDatabaseUrl } from '../test-support/database'

const FOLDER = join(import.meta.dir, '../../drizzle', onPostgres ? 'pg' : '')
/** The last migration before the data migration. */
const BEFORE = onPostgres ? '0006_teams_budgets' : '0014_teams_budgets'

/** A copy of the migrations folder whose journal stops at `lastTag`. */
function migrationsUpTo(lastTag: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'))
  cpSync(FOLDER, dir, { recursive: true })
  const journalFile = join(dir, 'meta', '_journal.json')
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] }
  journal.entries = journal.entries.slice(0, journal.entries.findIndex((e) => e.tag === lastTag) + 1)
  writeFileSync(journalFile, JSON.stringify(journal))
  return dir
}

test('the monthly limit becomes a month budget with this month’s spend counted', async () => {
  const { db, close } = openDatabase(await freshDatabaseUrl())
  const migrate = (folder: string) => (onPostgres ? migratePg(db as never, { migrationsFolder: folder }) : migrateLite(db, { migrationsFolder: folder }))
  const partial = migrationsUpTo(BEFORE)
  const exec = (query: ReturnType<typeof sql>) => selectRows(db, query)
  try {
    await migrate(partial)
    const now = Date.now()
    const monthStart = periodStart('month', now)
    // Written in the old shape: a capped key that spent this month and last month, and an uncapped one.
    await exec(sql`insert into users (id, email, email_normalized, password_hash, created_at, updated_at) values ('u1', 'a@b.ru', 'a@b.ru', 'x', ${now}, ${now})`)
    await exec(
      sql`insert into api_keys (id, user_id, name, key_prefix, key_hash, is_active, monthly_limit_micros, created_at) values ('capped', 'u1', 'k', 'sk-gw-', 'h1', ${true}, 5000000, ${now}), ('free', 'u1', 'k2', 'sk-gw-', 'h2', ${true}, null, ${now})`,
    )
    const log = (id: string, key: string, cost: number, at: number) =>
      exec(
        sql`insert into usage_logs (id, user_id, api_key_id, endpoint, model, cost_micros, status, duration_ms, created_at) values (${id}, 'u1', ${key}, 'chat', 'm', ${cost}, 'success', 1, ${at})`,
      )
    await log('l1', 'capped', 1_200_000, monthStart + 1000)
    await log('l2', 'capped', 300_000, now)
    await log('l3', 'capped', 9_999_999, monthStart - 1000) // last month: not counted
    await log('l4', 'free', 700_000, now)

    await migrate(FOLDER)
    const rows = await selectRows<Record<string, unknown>>(
      db,
      sql`select id, budget_limit_micros as "limit", budget_period as period, budget_period_start as start, budget_spent_micros as spent, budget_held_micros as held from api_keys order by id`,
    )
    const normalised = rows.map((r) => ({
      id: r.id,
      period: r.period,
      limit: r.limit === null ? null : Number(r.limit),
      start: Number(r.start),
      spent: Number(r.spent),
      held: Number(r.held),
    }))
    expect(normalised).toEqual([
      { id: 'capped', limit: 5_000_000, period: 'month', start: monthStart, spent: 1_500_000, held: 0 },
      { id: 'free', limit: null, period: 'month', start: monthStart, spent: 700_000, held: 0 },
    ])
    // The old column is gone.
    const columns = onPostgres
      ? await selectRows<{ name: string }>(db, sql`select column_name as name from information_schema.columns where table_name = 'api_keys'`)
      : await selectRows<{ name: string }>(db, sql`select name from pragma_table_info('api_keys')`)
    expect(columns.map((c) => c.name)).not.toContain('monthly_limit_micros')
  } finally {
    rmSync(partial, { recursive: true, force: true })
    await close()
  }
})
