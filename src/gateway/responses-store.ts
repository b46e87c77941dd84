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

/**
 * Whose responses: the person's own in their personal account; in a team, the member's own, or (`all`:
 * owners and admins, teams/roles.ts responses.all) every member's of the team.
 */
export type Owner = { userId: string; teamId: string | null; all: boolean }

/** The three scopes an Owner names, each with its own prepared walk. */
type Scope = 'personal' | 'member' | 'team'
const scopeOf = (o: Owner): Scope => (o.teamId === null ? 'personal' : o.all ? 'team' : 'member')

const ownedBy = (o: Owner): SQL => {
  if (o.teamId === null) return and(eq(t.userId, o.userId), isNull(t.teamId))!
  return o.all ? eq(t.teamId, o.teamId) : and(eq(t.teamId, o.teamId), eq(t.userId, o.userId))!
}

const p = sql.placeholder

/** The walk along parent_id and the rows it found, within one scope: every link must be the owner's. */
const chainStatement = (db: Db, scope: Scope) =>
  prepared(db, `stored-responses-chain-${scope}`, () => {
    const own = {
      personal: sql`user_id = ${p('user')} and team_id is null`,
      member: sql`team_id = ${p('team')} and user_id = ${p('user')}`,
      team: sql`team_id = ${p('team')}`,
    }[scope]
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
    const scope = scopeOf(owner)
    const who: Record<string, string> = scope === 'personal' ? { user: owner.userId } : scope === 'member' ? { user: owner.userId, team: owner.teamId! } : { team: owner.teamId! }
    const rows = await chainStatement(db, scope).rows(db, { id, ...who, now: now.getTime(), max: maxDepth })
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
