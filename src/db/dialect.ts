// One schema for both stores. Tables are declared once with these builders: on bun:sqlite (the
// embedded default) they are drizzle's sqlite-core builders; when DATABASE_URL names PostgreSQL they
// build the same tables with pg-core (integers as bigint, booleans as boolean, timestamps as epoch
// milliseconds in a bigint, JSON as json). The store is chosen once per process, before any table
// is declared, so the types stay sqlite-core's and the query code is written once for both: it only
// awaits queries (no .get/.all/.run, which pg-core lacks) and keeps dialect-specific SQL in src/db.
import * as pg from 'drizzle-orm/pg-core'
import * as lite from 'drizzle-orm/sqlite-core'
import { isPostgresUrl, PROCESS } from '../config'

export type Dialect = 'sqlite' | 'pg'

export { isPostgresUrl }

/** The store of this process, fixed at startup by DATABASE_URL. */
export const DIALECT: Dialect = PROCESS.postgres ? 'pg' : 'sqlite'
export const onPostgres = DIALECT === 'pg'

/** Epoch milliseconds in a bigint column, read back as a Date (sqlite-core's `timestamp_ms`). */
const pgTimestampMs = pg.customType<{ data: Date; driverData: string | number }>({
  dataType: () => 'bigint',
  toDriver: (value) => value.getTime(),
  fromDriver: (value) => new Date(Number(value)),
})

type IntegerConfig = { mode?: 'number' | 'timestamp' | 'timestamp_ms' | 'boolean' }

function pgInteger(name: string, config?: IntegerConfig) {
  switch (config?.mode) {
    case 'boolean':
      return pg.boolean(name)
    case 'timestamp':
    case 'timestamp_ms':
      return pgTimestampMs(name)
    default:
      // Micro-rubles and nano-dollars outgrow 32 bits: every integer is a bigint, read as a JS number.
      return pg.bigint(name, { mode: 'number' })
  }
}

function pgText(name: string, config?: { mode?: 'text' | 'json'; enum?: readonly [string, ...string[]] }) {
  if (config?.mode === 'json') return pg.json(name)
  return pg.text(name, config?.enum ? { enum: config.enum as [string, ...string[]] } : {})
}

// The sqlite-core signatures are kept for the types; at runtime the pg-core builders stand in.
export const table = (onPostgres ? pg.pgTable : lite.sqliteTable) as typeof lite.sqliteTable
export const text = (onPostgres ? pgText : lite.text) as typeof lite.text
export const integer = (onPostgres ? pgInteger : lite.integer) as typeof lite.integer
export const index = (onPostgres ? pg.index : lite.index) as typeof lite.index
export const uniqueIndex = (onPostgres ? pg.uniqueIndex : lite.uniqueIndex) as typeof lite.uniqueIndex
export const primaryKey = (onPostgres ? pg.primaryKey : lite.primaryKey) as typeof lite.primaryKey
