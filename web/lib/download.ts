// Files the API serves only with the Bearer header (CSV exports, invoice and act PDFs) cannot be a
// plain link: fetch them, then save the blob under the server's file name.
import { authorizedFetch, parseResponse } from './api'

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

/**
 * GET `path` as `accept`, saved through a temporary <a download> under the server's file name (else
 * `fallbackName`); a refusal throws the server's message, else `failure`.
 */
export async function downloadFile(path: string, { accept, failure, fallbackName }: { accept: string; failure: string; fallbackName: string }): Promise<void> {
  const response = await authorizedFetch(path, { headers: { Accept: accept } })
  if (!response.ok) await parseResponse(response, failure) // throws the server's message
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

/** Any CSV export of the API, saved under the server's file name (else `fallbackName`). */
export const downloadCsv = (path: string, fallbackName: string) => downloadFile(path, { accept: 'text/csv', failure: EXPORT_FALLBACK, fallbackName })
