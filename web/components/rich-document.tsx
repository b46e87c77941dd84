import { Fragment } from 'react'
import { Link } from 'wouter'
import { type Block, type DocSection, parseInline } from '../../src/content/rich-text'
import { cn } from '../lib/cn'
import { CopyButton } from './copy-button'
import { InfoIcon } from './icons'

const linkClass = 'font-medium text-indigo-700 underline decoration-indigo-300 underline-offset-2 hover:decoration-indigo-600'

/** A string with `code`, **bold** and [links](/x) rendered. */
export function InlineText({ text }: { text: string }) {
  return (
    <>
      {parseInline(text).map((node, i) => {
        if (node.t === 'code')
          return (
            <code key={i} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[0.875em] break-words text-slate-800">
              {node.v}
            </code>
          )
        if (node.t === 'strong')
          return (
            <strong key={i} className="font-semibold text-slate-900">
              {node.v}
            </strong>
          )
        if (node.t === 'link') {
          if (node.href.startsWith('/'))
            return (
              <Link key={i} href={node.href} className={linkClass}>
                {node.v}
              </Link>
            )
          const external = /^https?:/.test(node.href)
          return (
            <a key={i} href={node.href} className={linkClass} {...(external ? { target: '_blank', rel: 'noopener noreferrer' } : {})}>
              {node.v}
            </a>
          )
        }
        return <Fragment key={i}>{node.v}</Fragment>
      })}
    </>
  )
}

/** A dark code block with its language and a copy button. */
export function CodeBlock({ code, lang, title }: { code: string; lang: string; title?: string }) {
  return (
    <figure className="my-4 min-w-0 overflow-hidden rounded-xl border border-slate-800 bg-slate-900">
      <figcaption className="flex items-center justify-between gap-3 border-b border-white/10 py-1 pr-1.5 pl-4">
        <span className="truncate font-mono text-xs text-slate-300">{title ?? lang}</span>
        <CopyButton text={code} className="text-slate-300 hover:bg-white/10 hover:text-white" />
      </figcaption>
      <pre tabIndex={0} className="overflow-x-auto p-4 font-mono text-[13px] leading-6 text-slate-100">
        <code>{code}</code>
      </pre>
    </figure>
  )
}

export function RichBlocks({ blocks }: { blocks: Block[] }) {
  return (
    <>
      {blocks.map((block, i) => {
        switch (block.type) {
          case 'p':
            return (
              <p key={i} className="my-3 text-[15px] leading-7 text-slate-700">
                <InlineText text={block.text} />
              </p>
            )
          case 'h3':
            return (
              <h3 key={i} className="mt-6 mb-2 text-base font-semibold text-slate-900">
                <InlineText text={block.text} />
              </h3>
            )
          case 'ul':
          case 'ol': {
            const List = block.type
            return (
              <List
                key={i}
                className={cn(
                  'my-3 space-y-1.5 pl-5 text-[15px] leading-7 text-slate-700',
                  block.type === 'ul' ? 'list-disc marker:text-slate-400' : 'list-decimal marker:text-slate-500',
                )}
              >
                {block.items.map((item, j) => (
                  <li key={j} className="pl-1">
                    <InlineText text={item} />
                  </li>
                ))}
              </List>
            )
          }
          case 'code':
            return <CodeBlock key={i} code={block.code} lang={block.lang} title={block.title} />
          case 'table':
            return <DocTable key={i} head={block.head} rows={block.rows} />
          case 'note':
            return (
              <div key={i} className="my-4 flex gap-3 rounded-xl border border-indigo-100 bg-indigo-50/60 p-4 text-[15px] leading-7 text-slate-700">
                <InfoIcon size={18} className="mt-1 shrink-0 text-indigo-600" />
                <p>
                  <InlineText text={block.text} />
                </p>
              </div>
            )
        }
        return null // every Block type is handled above; one from newer content renders nothing
      })}
    </>
  )
}

/**
 * A table that is never cut off: from 640 px a real table (scrolling sideways inside its frame if
 * it must); on a phone each row becomes a small card of «heading: value» pairs, since a 360 px
 * screen cannot show even two columns of legal text side by side without clipping.
 */
function DocTable({ head, rows }: { head: string[]; rows: string[][] }) {
  return (
    <>
      <div className="my-4 overflow-x-auto rounded-xl border border-slate-200 max-sm:hidden" data-testid="doc-table">
        <table className={cn('w-full border-collapse text-left text-sm', head.length > 2 && 'min-w-[32rem]')}>
          <thead className="bg-slate-50 text-slate-600">
            <tr>
              {head.map((h, j) => (
                <th key={j} scope="col" className="px-4 py-2.5 font-semibold">
                  <InlineText text={h} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {rows.map((row, j) => (
              <tr key={j} className="align-top">
                {row.map((cell, k) => (
                  <td key={k} className="px-4 py-2.5 leading-6 text-slate-700">
                    <InlineText text={cell} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ul className="my-4 divide-y divide-slate-100 rounded-xl border border-slate-200 sm:hidden" data-testid="doc-table-stacked">
        {rows.map((row, j) => (
          <li key={j} className="px-4 py-3">
            <dl className="space-y-1.5 text-sm">
              {row.map((cell, k) => (
                <div key={k} className="min-w-0">
                  <dt className="text-xs font-medium text-slate-500">
                    <InlineText text={head[k] ?? ''} />
                  </dt>
                  <dd className="leading-6 break-words text-slate-700">
                    <InlineText text={cell} />
                  </dd>
                </div>
              ))}
            </dl>
          </li>
        ))}
      </ul>
    </>
  )
}

/** Numbered or plain sections with anchor ids (for the table of contents). */
export function RichSections({ sections, numbered = false }: { sections: DocSection[]; numbered?: boolean }) {
  return (
    <>
      {sections.map((section, i) => (
        <section key={section.id} id={section.id} aria-labelledby={`${section.id}-title`} className="scroll-mt-24 pt-2">
          <h2 id={`${section.id}-title`} className="mt-8 mb-3 text-xl font-semibold tracking-tight text-slate-900 sm:text-[22px]">
            {numbered ? `${i + 1}. ` : ''}
            {section.title}
          </h2>
          <RichBlocks blocks={section.blocks} />
        </section>
      ))}
    </>
  )
}
