// The CSV export needs the Bearer header, so it cannot be a plain link: fetch it, then save the blob.
import { authorizedFetch, parseResponse } from '../../lib/api'
import { type UsageParams, usageQuery } from '../../lib/queries'

export const EXPORT_FALLBACK = 'Не удалось выгрузить CSV'

/** The file name from Content-Disposition (filename*=UTF-8''… or filename="…"), if any. */
export function filenameFrom(disposition: string | null): string | null {
  if (!disposition) return null
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition)
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim())
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition)
  return plain?.[1]?.trim() || null
}

/** GET /api/billing/usage/export?…&format=csv, saved through a temporary <a download>. */
export const downloadUsageCsv = (params: UsageParams) => downloadCsv(`/api/billing/usage/export?${usageQuery(params, { format: 'csv' })}`, 'usage.csv')

/** Any CSV export of the API, saved under the server's file name (else `fallbackName`). */
export async function downloadCsv(path: string, fallbackName: string): Promise<void> {
  const response = await authorizedFetch(path, { headers: { Accept: 'text/csv' } })
  if (!response.ok) await parseResponse(response, EXPORT_FALLBACK) // throws the server's message
  const blob = await response.blob()
  const name = filenameFrom(response.headers.get('Content-Disposition')) ?? fallbackName
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.style.display = 'none'
  document.body.append(link)
  link.click()
  link.remove()
  // The click has started the download; the object URL is not needed after this turn.
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}
