import { downloadCsv } from '../../lib/download'
import { type UsageParams, usageQuery } from '../../lib/queries'

/** GET /api/billing/usage/export?…&format=csv, saved under the server's file name. */
export const downloadUsageCsv = (params: UsageParams) => downloadCsv(`/api/billing/usage/export?${usageQuery(params, { format: 'csv' })}`, 'usage.csv')
