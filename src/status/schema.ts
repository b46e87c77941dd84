import { index, integer, table, text } from '../db/dialect'

/**
 * An outage of an upstream as one instance's circuit breaker saw it: from the moment it opened to the
 * moment its probes closed it again. Every instance writes its own rows; the status page merges them.
 * `checkedAt` moves on while the incident is open: a row whose instance stopped (crashed, restarted)
 * is not open for ever, it ends where its instance last vouched for it.
 */
export const upstreamIncidents = table(
  'upstream_incidents',
  {
    id: text('id').primaryKey(),
    upstream: text('upstream').notNull(),
    instanceId: text('instance_id').notNull(),
    startedAt: integer('started_at', { mode: 'timestamp_ms' }).notNull(),
    endedAt: integer('ended_at', { mode: 'timestamp_ms' }),
    checkedAt: integer('checked_at', { mode: 'timestamp_ms' }).notNull(),
    /** What failed, in Russian: «HTTP 503», «нет соединения», «нет ответа вовремя». */
    reason: text('reason').notNull(),
  },
  (t) => [index('upstream_incidents_started_idx').on(t.startedAt)],
)

export type IncidentRow = typeof upstreamIncidents.$inferSelect
