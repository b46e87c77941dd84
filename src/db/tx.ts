// How the stores write, the same on both stores. `tx` runs a unit atomically; `write` runs a
// single-statement write. On SQLite both go through the process's one writer (writer.ts), so
// concurrent writes share commits and never land inside someone else's transaction; on PostgreSQL
// `tx` is a transaction on a pooled connection and `write` a plain statement.
// Bodies await database statements only (never the network: on SQLite every writer waits for them).
import type { Db } from './types'
import { insideUnit, type Work, writer } from './writer'

/** Runs `work` in one transaction; if it throws, nothing of it is written. */
export const tx = <T>(db: Db, work: Work<T>): Promise<T> => writer(db)(work)

/** Runs one writing statement (its `returning` rows, if any, are the answer). */
export const write = <T>(db: Db, work: Work<T>): Promise<T> => writer(db)(work, { single: true })

/** Whether the caller already runs inside a unit of `db` (a statement sent now would join its transaction). */
export const inUnit = (db: Db): boolean => insideUnit(db)
