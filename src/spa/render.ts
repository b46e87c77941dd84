// HTML for crawlers and visitors without JavaScript: the same texts the SPA shows, as plain
// semantic markup. Everything that comes from data is escaped here.
import { escapeHtml } from '../content/markdown'
import { type Block, parseInline, type RichDocument } from '../content/rich-text'
import { headTags, jsonForScript, type PageMeta } from '../content/seo'

export const esc = escapeHtml

/** An href for inline markup: site paths, http(s) and mailto only. */
const safeHref = (href: string) => (/^(\/(?![/\\])|https?:\/\/|mailto:)/i.test(href) ? href : '#')

export function inlineHtml(text: string): string {
  return parseInline(text)
    .map((n) => {
      if (n.t === 'code') return `<code>${esc(n.v)}</code>`
      if (n.t === 'strong') return `<strong>${esc(n.v)}</strong>`
      if (n.t === 'link') return `<a href="${esc(safeHref(n.href))}">${esc(n.v)}</a>`
      return esc(n.v)
    })
    .join('')
}

export function blocksHtml(blocks: Block[]): string {
  return blocks
    .map((b) => {
      switch (b.type) {
        case 'p':
          return `<p>${inlineHtml(b.text)}</p>`
        case 'h3':
          return `<h3>${inlineHtml(b.text)}</h3>`
        case 'ul':
        case 'ol':
          return `<${b.type}>${b.items.map((i) => `<li>${inlineHtml(i)}</li>`).join('')}</${b.type}>`
        case 'code':
          return `<pre><code>${esc(b.code)}</code></pre>`
        case 'table':
          return (
            `<table><thead><tr>${b.head.map((h) => `<th>${inlineHtml(h)}</th>`).join('')}</tr></thead>` +
            `<tbody>${b.rows.map((r) => `<tr>${r.map((c) => `<td>${inlineHtml(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`
          )
        case 'note':
          return `<p>${inlineHtml(b.text)}</p>`
      }
      return '' // every Block type is handled above; one from newer content renders nothing
    })
    .join('\n')
}

export function documentHtml(doc: RichDocument, numbered = false): string {
  const sections = doc.sections.map((s, i) => `<section id="${esc(s.id)}"><h2>${numbered ? `${i + 1}. ` : ''}${esc(s.title)}</h2>\n${blocksHtml(s.blocks)}</section>`).join('\n')
  return `<h1>${esc(doc.title)}</h1>${doc.lead ? `<p>${esc(doc.lead)}</p>` : ''}${doc.updated ? `<p>Редакция от ${esc(doc.updated)}</p>` : ''}\n${sections}`
}

/** <title> and every metadata tag, marked data-seo so the SPA can replace them later. */
export function headHtml(meta: PageMeta, origin: string): string {
  const tags = headTags(meta, origin).map((tag) => {
    if (tag.kind === 'jsonld') return `<script type="application/ld+json" data-seo>${jsonForScript(tag.json)}</script>`
    const attrs = Object.entries(tag.attrs)
      .map(([k, v]) => `${k}="${esc(v)}"`)
      .join(' ')
    return `<${tag.kind} ${attrs} data-seo>`
  })
  return [`<title>${esc(meta.title)}</title>`, ...tags].join('\n    ')
}
