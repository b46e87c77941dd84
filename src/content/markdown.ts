// Markdown of blog articles → HTML that is safe without a DOM: raw HTML in the source is shown as
// text, links and images keep only http(s), mailto and same-site addresses, and every attribute
// is escaped. The server uses it for the article it sends to crawlers; the browser additionally
// passes the result through DOMPurify (defence in depth).
import { Marked, type Tokens } from 'marked'

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

/**
 * The address if it may be used in href/src, else null. Browsers ignore control characters and
 * spaces inside a scheme ("java\tscript:"), so they are dropped before the scheme is read.
 */
export function safeUrl(raw: string, kind: 'link' | 'image' = 'link'): string | null {
  const url = raw.trim()
  if (!url) return null
  // biome-ignore lint/suspicious/noControlCharactersInRegex: what a browser strips from a scheme
  const squashed = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase()
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(squashed)?.[1]
  // relative to this site ('/x', '#a', 'x'); '//host' and '/\\host' would leave it
  if (!scheme) return /^[/\\]{2}/.test(squashed) ? null : url
  const allowed = kind === 'image' ? ['http', 'https'] : ['http', 'https', 'mailto']
  return allowed.includes(scheme) ? url : null
}

const isExternal = (href: string) => /^https?:\/\//i.test(href)

const markdown = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    // Raw HTML is never passed through: it is shown as the text it is.
    html({ text, block }: Tokens.HTML | Tokens.Tag) {
      const escaped = escapeHtml(text)
      return block ? `<p>${escaped}</p>\n` : escaped
    },
    // The page's own title is the only <h1>.
    heading({ tokens, depth }: Tokens.Heading) {
      const level = Math.min(6, Math.max(2, depth))
      return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`
    },
    link({ href, title, tokens }: Tokens.Link) {
      const inner = this.parser.parseInline(tokens)
      const url = safeUrl(href, 'link')
      if (!url) return inner
      const titleAttr = title ? ` title="${escapeHtml(title)}"` : ''
      const external = isExternal(url) ? ' target="_blank" rel="noopener noreferrer nofollow"' : ''
      return `<a href="${escapeHtml(url)}"${titleAttr}${external}>${inner}</a>`
    },
    image({ href, title, text }: Tokens.Image) {
      const url = safeUrl(href, 'image')
      if (!url) return escapeHtml(text)
      const titleAttr = title ? ` title="${escapeHtml(title)}"` : ''
      return `<img src="${escapeHtml(url)}" alt="${escapeHtml(text)}"${titleAttr} loading="lazy">`
    },
  },
})

/** Markdown → HTML with no script, no event handler and no dangerous URL. */
export function renderMarkdown(source: string): string {
  return markdown.parse(source ?? '', { async: false }) as string
}

/** Plain text of the markdown (for descriptions and reading time): tags and markup removed. */
export function markdownToText(source: string): string {
  return renderMarkdown(source)
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!)
    .replace(/\s+/g, ' ')
    .trim()
}
