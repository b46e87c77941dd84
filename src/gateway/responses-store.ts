// Queries of the stored Responses API answers (schema.ts): a chain read along its parent links in one
// recursive query, a response stored with its ancestors' lifetime renewed in the same unit, the
// retention purge in batches.
import { and, eq, gt, inArray, isNull, lt, type SQL, sql } from 'drizzle-orm'
import { column, compiled, prepared, rawStatement } from '../db/prepared'
import { deleteInBatches } from '../db/purge'
import { tx, write } from '../db/tx'
import type { Db } from '../db/types'
import { type StoredResponseRow, storedResponses as t } from './schema'

/** A response as a link of its chain. */
export type ChainRow = Pick<StoredResponseRow, 'id' | 'parentId' | 'input' | 'output' | 'chainBytes' | 'depth' | 'expiresAt'>

/** Whose responses: a team's (when acting for one), else the person's own. */
export type Owner = { userId: string; teamId: string | null }

const ownedBy = (o: Owner): SQL => (o.teamId ? eq(t.teamId, o.teamId) : and(eq(t.userId, o.userId), isNull(t.teamId))!)

const p = sql.placeholder

/** The walk along parent_id and the rows it found, for a person's or (`team`) a team's responses. */
const chainStatement = (db: Db, team: boolean) =>
  prepared(db, team ? 'stored-responses-chain-team' : 'stored-responses-chain', () => {
    const own = team ? sql`team_id = ${p('owner')}` : sql`user_id = ${p('owner')} and team_id is null`
    const query = sql`
      with recursive chain(id, parent_id, steps) as (
        select id, parent_id, 0 from stored_responses where id = ${p('id')} and ${own} and expires_at > ${p('now')}
        union all
        select s.id, s.parent_id, c.steps + 1 from stored_responses s join chain c on s.id = c.parent_id
         where ${own} and s.expires_at > ${p('now')} and c.steps < ${p('max')}
      )
      select r.id, r.parent_id, r.input, r.output, r.chain_bytes, r.depth, r.expires_at from chain join stored_responses r on r.id = chain.id`
    return compiled(
      db,
      rawStatement(db, query, {
        id: column.text,
        parentId: column.nullable(column.text),
        input: column.json,
        output: column.json,
        chainBytes: column.number,
        depth: column.number,
        expiresAt: column.date,
      }),
    )
  })

export const responsesStore = (db: Db) => ({
  /** One live response of the owner. */
  async get(id: string, owner: Owner, now: Date): Promise<StoredResponseRow | undefined> {
    const [row] = await db
      .select()
      .from(t)
      .where(and(eq(t.id, id), ownedBy(owner), gt(t.expiresAt, now)))
      .limit(1)
    return row
  },

  /**
   * The chain that ends with `id`, first response first: `id` itself, then its parents while they are
   * the owner's and live, at most `maxDepth + 1` rows. A chain whose first row still has a parent was
   * cut (an ancestor deleted or expired): the caller checks. One prepared statement: the walk and the
   * rows it found (a chained request runs it before its hold).
   */
  async chain(id: string, owner: Owner, now: Date, maxDepth: number): Promise<ChainRow[]> {
    const rows = await chainStatement(db, owner.teamId !== null).rows(db, { id, owner: owner.teamId ?? owner.userId, now: now.getTime(), max: maxDepth })
    return rows.map((r) => ({ ...r, input: r.input as unknown[], output: r.output as unknown[] })).sort((a, b) => a.depth - b.depth)
  },

  /**
   * Stores a response; the ancestors that would expire before `renewTo` − `slackMs` get `renewTo`, so a
   * chain in use never loses its beginning (renewed about once a day, not on every turn).
   */
  async insert(row: StoredResponseRow, ancestors: string[], renewTo: Date, slackMs: number) {
    await tx(db, async (q) => {
      await q.insert(t).values(row)
      if (ancestors.length > 0)
        await q
          .update(t)
          .set({ expiresAt: renewTo })
          .where(and(inArray(t.id, ancestors), lt(t.expiresAt, new Date(renewTo.getTime() - slackMs))))
    })
  },

  /** Deletes one response of the owner; false when there was none. */
  async delete(id: string, owner: Owner): Promise<boolean> {
    const gone = await write(db, (q) =>
      q
        .delete(t)
        .where(and(eq(t.id, id), ownedBy(owner)))
        .returning({ id: t.id }),
    )
    return gone.length > 0
  },

  /** Deletes expired responses in batches, so no transaction runs long; how many went. */
  purgeExpired: (now: Date, batch = 1000): Promise<number> => deleteInBatches(db, t, lt(t.expiresAt, now), batch),
})

export type ResponsesStore = ReturnType<typeof responsesStore>
