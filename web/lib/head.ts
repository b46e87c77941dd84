// Keeps document.head in step with the page shown: title, description, canonical link, social
// tags and JSON-LD. The server sends the same tags (marked data-seo) for the first page; after
// that the SPA replaces them on every navigation.
import { useEffect } from 'react'
import { headTags, jsonForScript, metaForPath, type PageMeta } from '../../src/content/seo'

/** The site's public origin: the server writes PUBLIC_URL into the canonical link it sends. */
export const siteOrigin: string = (() => {
  if (typeof document === 'undefined') return ''
  const href = document.querySelector<HTMLLinkElement>('link[rel="canonical"]')?.href
  try {
    if (href) return new URL(href).origin
  } catch {
    /* fall back to the address bar */
  }
  return window.location.origin
})()

/** Replaces the page's metadata in document.head. */
export function applyHead(meta: PageMeta): void {
  document.title = meta.title
  for (const el of document.head.querySelectorAll('[data-seo]')) el.remove()
  const fragment = document.createDocumentFragment()
  for (const tag of headTags(meta, siteOrigin)) {
    if (tag.kind === 'jsonld') {
      const script = document.createElement('script')
      script.type = 'application/ld+json'
      script.textContent = jsonForScript(tag.json)
      script.setAttribute('data-seo', '')
      fragment.append(script)
      continue
    }
    const el = document.createElement(tag.kind)
    for (const [name, value] of Object.entries(tag.attrs)) el.setAttribute(name, value)
    el.setAttribute('data-seo', '')
    fragment.append(el)
  }
  document.head.append(fragment)
}

/** The metadata of a path from the shared table (blog posts override it once loaded). */
export function applyRouteHead(path: string): void {
  applyHead(metaForPath(path, siteOrigin))
}

/** Sets the page's metadata while it is shown; pass null while the data it depends on loads. */
export function usePageMeta(meta: PageMeta | null): void {
  const key = meta ? JSON.stringify(meta) : null
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed by the serialised metadata: a new object with the same content changes nothing
  useEffect(() => {
    if (meta) applyHead(meta)
  }, [key])
}
