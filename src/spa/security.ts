// The security headers of every HTML answer (the SPA's pages and the API reference at /api/docs);
// both routes take them from here. JSON, SSE, images and scripts need none of them: a policy is
// only read from the document a browser renders.
//
// Tokens live in localStorage, so the point is that no script but our own same-origin files can
// run: no inline script (the pages carry only JSON-LD and a JSON island, which are data and never
// executed), no eval, no plugin, no <base> rewrite, and no framing (clickjacking).

export type HtmlPolicy = 'app' | 'api-docs'

const common = [
  "default-src 'self'",
  "script-src 'self'",
  // Blog covers and article images may come from any https host; previews are data:/blob: URLs.
  "img-src 'self' data: blob: https:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "media-src 'self' data: blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
]

const POLICIES: Record<HtmlPolicy, string> = {
  // The SPA's styles are one built stylesheet; React's style props go through the CSSOM, which
  // style-src does not govern, so no inline <style> or style="" is needed.
  app: [...common, "style-src 'self'"].join('; '),
  // Scalar's bundle injects its stylesheet and CodeMirror's as <style> elements at run time.
  'api-docs': [...common, "style-src 'self' 'unsafe-inline'"].join('; '),
}

// The microphone for our own pages only: the Playground dictates into its composer (issue 27).
export const PERMISSIONS_POLICY = 'camera=(), microphone=(self), geolocation=(), payment=(), usb=()'
export const HSTS = 'max-age=31536000; includeSubDomains'

export function contentSecurityPolicy(policy: HtmlPolicy): string {
  return POLICIES[policy]
}

/** Headers for an HTML answer; HSTS only when the site is served over https (PUBLIC_URL). */
export function htmlSecurityHeaders(publicUrl: string, policy: HtmlPolicy): Record<string, string> {
  return {
    'content-security-policy': POLICIES[policy],
    'permissions-policy': PERMISSIONS_POLICY,
    ...(publicUrl.startsWith('https:') ? { 'strict-transport-security': HSTS } : {}),
  }
}
