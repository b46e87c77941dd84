// GET of public JSON for the public pages, without SWR: the landing's entry (web/landing.tsx) must
// stay light (issue 29). One request per URL and page load; no auth header, no retries — the
// public pages show nothing rather than an error when it fails.
import { useEffect, useState } from 'react'

const requests = new Map<string, Promise<unknown>>()

/** `/api` answers `{success, data}`: its data; any other JSON (e.g. `/v1/models`) as it came. */
function load(url: string): Promise<unknown> {
  let request = requests.get(url)
  if (!request) {
    request = fetch(url, { headers: { accept: 'application/json' } }).then(async (res) => {
      const body = (await res.json()) as { success?: boolean; data?: unknown }
      if (!res.ok || body.success === false) throw new Error(`GET ${url}: ${res.status}`)
      return url.startsWith('/api/') ? body.data : body
    })
    // a failure is not kept: the next page that asks tries again
    request.catch(() => requests.delete(url))
    requests.set(url, request)
  }
  return request
}

export function usePublicJson<T>(url: string | null): { data?: T; error?: unknown; isLoading: boolean } {
  const [state, setState] = useState<{ url: string | null; data?: T; error?: unknown }>({ url: null })
  useEffect(() => {
    if (!url) return
    let live = true
    load(url).then(
      (data) => live && setState({ url, data: data as T }),
      (error: unknown) => live && setState({ url, error }),
    )
    return () => {
      live = false
    }
  }, [url])
  const current = state.url === url ? state : { url }
  return { data: current.data, error: current.error, isLoading: !!url && current.data === undefined && current.error === undefined }
}
