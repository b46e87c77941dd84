// Long texts written as data (legal documents, documentation, services) so the same words reach
// both the React pages and the HTML the server sends to crawlers. Pure: no DOM, no React.
//
// Inline markup inside a string: `code`, **bold**, [label](/path or https://…).

export type Block =
  | { type: 'p'; text: string }
  | { type: 'h3'; text: string }
  | { type: 'ul'; items: string[] }
  | { type: 'ol'; items: string[] }
  | { type: 'code'; lang: string; code: string; title?: string }
  | { type: 'table'; head: string[]; rows: string[][] }
  | { type: 'note'; text: string }

export interface DocSection {
  /** Anchor id (#id) */
  id: string
  title: string
  blocks: Block[]
}

export interface RichDocument {
  title: string
  lead?: string
  /** 'Редакция от …' line */
  updated?: string
  sections: DocSection[]
}

export type InlineNode = { t: 'text'; v: string } | { t: 'code'; v: string } | { t: 'strong'; v: string } | { t: 'link'; v: string; href: string }

const INLINE = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g

export function parseInline(text: string): InlineNode[] {
  const out: InlineNode[] = []
  let last = 0
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push({ t: 'text', v: text.slice(last, m.index) })
    if (m[1] !== undefined) out.push({ t: 'code', v: m[1] })
    else if (m[2] !== undefined) out.push({ t: 'strong', v: m[2] })
    else out.push({ t: 'link', v: m[3]!, href: m[4]! })
    last = m.index + m[0].length
  }
  if (last < text.length) out.push({ t: 'text', v: text.slice(last) })
  return out
}

/** The text without markup (for descriptions and search). */
export const plainInline = (text: string) =>
  parseInline(text)
    .map((n) => n.v)
    .join('')
