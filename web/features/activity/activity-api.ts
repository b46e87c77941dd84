// The activity log's calls: the filters as a query string, the pages by cursor, the CSV.
import { type ActivityProtocol, type ActivityStatus, WEB_SESSION_LABEL } from '../../../src/content/activity'
import { moscowMs } from '../../../src/content/moscow'
import type { ActivityItem } from '../../../src/wire'
import { downloadCsv } from '../../lib/download'

export type { ActivityDetail, ActivityFilters, ActivityItem, ActivityPage } from '../../../src/wire'

export const PAGE_SIZE = 50

export interface ActivityParams {
  /** A key's id, or 'web' for the Playground's requests (they carry no key). */
  keyId: string
  model: string
  status: ActivityStatus | ''
  protocol: ActivityProtocol | ''
  userId: string
  /** Moscow days, YYYY-MM-DD: from the start of `from` to the end of `to`. */
  from: string
  to: string
}

export const NO_FILTERS: ActivityParams = { keyId: '', model: '', status: '', protocol: '', userId: '', from: '', to: '' }

const DAY_MS = 86_400_000
/** The start of a Moscow day as an instant (Moscow keeps UTC+3 all year). */
const moscowMidnight = (day: string) => new Date(moscowMs(day))

/** The query of GET /api/activity and its export, empty filters left out. */
export function activityQuery(p: ActivityParams): URLSearchParams {
  const q = new URLSearchParams()
  for (const name of ['keyId', 'model', 'status', 'protocol', 'userId'] as const) if (p[name]) q.set(name, p[name])
  if (p.from) q.set('from', moscowMidnight(p.from).toISOString())
  if (p.to) q.set('to', new Date(moscowMidnight(p.to).getTime() + DAY_MS).toISOString())
  return q
}

export const activityPageKey = (p: ActivityParams, cursor: string | null) => {
  const q = activityQuery(p)
  q.set('limit', String(PAGE_SIZE))
  if (cursor) q.set('cursor', cursor)
  return `/api/activity?${q}`
}

export const downloadActivityCsv = (p: ActivityParams) => downloadCsv(`/api/activity/export?${activityQuery(p)}`, 'activity.csv')

/** The key a request was made with, as people know it. */
export const keyLabel = (i: Pick<ActivityItem, 'keyName'>) => i.keyName ?? WEB_SESSION_LABEL
