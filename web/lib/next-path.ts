// Where to return after signing in: `?next=` carries a path of this site only. A value is taken
// when it is a path starting with one `/` (never `//host`, `/\host` or a scheme such as
// `javascript:`), so a crafted link cannot send the visitor to another origin.

export const DEFAULT_AFTER_SIGN_IN = '/app/dashboard'

/** The path to open after signing in, or null when `raw` is missing or not a same-origin path. */
export function safeNextPath(raw: string | null | undefined): string | null {
  if (!raw || raw.length > 2000) return null
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return null
  // Control characters and backslashes are how browsers get talked into another host.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here
  if (/[\u0000-\u001f\\]/.test(raw)) return null
  try {
    const url = new URL(raw, 'http://same.origin')
    if (url.origin !== 'http://same.origin') return null
    return url.pathname + url.search + url.hash
  } catch {
    return null
  }
}

/** `next` from the current address bar, checked. */
export function nextFromSearch(search: string): string | null {
  return safeNextPath(new URLSearchParams(search).get('next'))
}

/** `/login` or `/register` carrying the return path on. */
export function withNext(path: string, next: string | null): string {
  return next ? `${path}?next=${encodeURIComponent(next)}` : path
}
