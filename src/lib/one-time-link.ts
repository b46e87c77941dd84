// One-time links — password resets, e-mail confirmations, team invitations: a random token in the
// link, only its SHA-256 stored, an expiry, and single use by a conditional UPDATE (of two openings
// at once exactly one claims it). One helper over each link's table; the tables share these columns.
import { and, eq, isNull, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTableWithColumns } from 'drizzle-orm/sqlite-core'
import type { Db } from '../db/types'
import { newId, randomToken, sha256 } from './crypto'

type LinkColumns = { id: SQLiteColumn; tokenHash: SQLiteColumn; createdAt: SQLiteColumn; expiresAt: SQLiteColumn; usedAt: SQLiteColumn }
// biome-ignore lint/suspicious/noExplicitAny: any link table: only the columns above are used
type LinkTable = SQLiteTableWithColumns<any> & LinkColumns
type Row = { id: string; tokenHash: string; createdAt: Date; expiresAt: Date; usedAt: Date | null }

export function oneTimeLinks<T extends LinkTable>(table: T, ttlMs: number) {
  type Select = T['$inferSelect'] & Row
  return {
    ttlMs,
    /** Writes a new link (`fields` are the table's own columns) and answers its token, which is never stored. */
    async issue(q: Db, fields: Omit<T['$inferInsert'], keyof Row>, now = new Date()): Promise<{ id: string; token: string; expiresAt: Date }> {
      const token = randomToken()
      const id = newId()
      const expiresAt = new Date(+now + ttlMs)
      await q.insert(table).values({ ...fields, id, tokenHash: sha256(token), createdAt: now, expiresAt } as T['$inferInsert'])
      return { id, token, expiresAt }
    },

    /** The link a token belongs to, used or not (callers tell "already used" apart); undefined for an unknown token. */
    async find(db: Db, token: string): Promise<Select | undefined> {
      if (!token) return undefined
      const rows = (await db
        .select()
        .from(table)
        .where(eq(table.tokenHash, sha256(token)))
        .limit(1)) as Select[]
      return rows[0]
    },

    /** Neither used nor expired. */
    usable: (row: Pick<Row, 'usedAt' | 'expiresAt'>, now = new Date()) => row.usedAt === null && row.expiresAt > now,

    /** Single use: marks the link used; true for exactly one caller even when it is opened twice at once. */
    async claim(q: Db, id: string, now = new Date()): Promise<boolean> {
      const rows = await q
        .update(table)
        .set({ usedAt: now } as Partial<T['$inferInsert']>)
        .where(and(eq(table.id, id), isNull(table.usedAt)))
        .returning({ id: table.id })
      return rows.length === 1
    },

    /** Marks the other open links matching `where` used (a reset or a confirmation leaves nothing for them to do). */
    async expireWhere(q: Db, where: SQL | undefined, now = new Date()): Promise<void> {
      await q
        .update(table)
        .set({ usedAt: now } as Partial<T['$inferInsert']>)
        .where(and(where, isNull(table.usedAt)))
    },
  }
}
