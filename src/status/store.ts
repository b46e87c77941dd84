// The incidents' rows: written by the instance whose breaker saw them, read by every instance.
import { eq, gte, isNull, or } from 'drizzle-orm'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import type { UpstreamName } from '../upstream/names'
import { upstreamIncidents } from './schema'

export function incidentsStore(db: Db) {
  return {
    async open(upstream: UpstreamName, instanceId: string, at: Date, reason: string): Promise<string> {
      const id = newId()
      await db.insert(upstreamIncidents).values({ id, upstream, instanceId, startedAt: at, endedAt: null, checkedAt: at, reason })
      return id
    },

    /** Still failing (a probe failed, or the heartbeat of an open breaker). */
    async touch(id: string, at: Date, reason?: string) {
      await db
        .update(upstreamIncidents)
        .set(reason ? { checkedAt: at, reason } : { checkedAt: at })
        .where(eq(upstreamIncidents.id, id))
    },

    async close(id: string, at: Date) {
      await db.update(upstreamIncidents).set({ endedAt: at, checkedAt: at }).where(eq(upstreamIncidents.id, id))
    },

    /** Every incident that was going on at some moment since `from`. */
    since(from: Date) {
      return db
        .select()
        .from(upstreamIncidents)
        .where(or(isNull(upstreamIncidents.endedAt), gte(upstreamIncidents.endedAt, from)))
        .orderBy(upstreamIncidents.startedAt)
    },
  }
}
