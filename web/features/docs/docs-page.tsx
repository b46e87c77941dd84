import { useEffect, useMemo } from 'react'
import { docsDocument, tabGroupOf } from '../../../src/content/docs'
import type { Block, DocSection } from '../../../src/content/rich-text'
import { ButtonLink } from '../../components/button'
import { RichBlocks } from '../../components/rich-document'
import { cn } from '../../lib/cn'
import { CodeTabs, PreferredTab, usePreferredTabState } from './code-tabs'

type CodeBlock = Extract<Block, { type: 'code' }>
type Run = { tabs: false; blocks: Block[] } | { tabs: true; blocks: CodeBlock[] }

/** A section's blocks in runs: plain blocks as they are, each tab group (see src/content/docs.ts) as one run. */
function runsOf(blocks: Block[]): Run[] {
  const runs: Run[] = []
  let group: number | undefined
  for (const block of blocks) {
    const g = tabGroupOf(block)
    const last = runs.at(-1)
    if (g !== undefined && block.type === 'code') {
      if (last?.tabs && group === g) last.blocks.push(block)
      else runs.push({ tabs: true, blocks: [block] })
    } else if (last && !last.tabs) last.blocks.push(block)
    else runs.push({ tabs: false, blocks: [block] })
    group = g
  }
  return runs
}

/** RichSections' markup, with tab groups drawn as tabs. */
function DocsSections({ sections }: { sections: DocSection[] }) {
  const preferred = usePreferredTabState()
  return (
    <PreferredTab.Provider value={preferred}>
      {sections.map((section) => (
        <section key={section.id} id={section.id} aria-labelledby={`${section.id}-title`} className="scroll-mt-24 pt-2">
          <h2 id={`${section.id}-title`} className="mt-8 mb-3 text-xl font-semibold tracking-tight text-slate-900 sm:text-[22px]">
            {section.title}
          </h2>
          {runsOf(section.blocks).map((run, i) => (run.tabs ? <CodeTabs key={i} blocks={run.blocks} /> : <RichBlocks key={i} blocks={run.blocks} />))}
        </section>
      ))}
    </PreferredTab.Provider>
  )
}

/** The documentation with this server's address (the one the reader has open) in every example. */
function DocsContent({ publicPage }: { publicPage: boolean }) {
  const doc = useMemo(() => docsDocument(window.location.origin), [])
  // Arriving at /docs#section (a link from the catalogue or elsewhere): scroll there once it is drawn.
  useEffect(() => {
    const id = decodeURIComponent(window.location.hash.slice(1))
    if (!id) return
    const frame = requestAnimationFrame(() => document.getElementById(id)?.scrollIntoView())
    return () => cancelAnimationFrame(frame)
  }, [])
  return (
    <div className="grid gap-8 lg:grid-cols-[13rem_minmax(0,1fr)] xl:gap-12">
      <nav aria-label="Разделы документации" className="min-w-0">
        <div className={cn('lg:sticky', publicPage ? 'lg:top-24' : 'lg:top-6')}>
          <h2 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">Разделы</h2>
          <ol className="mt-3 flex flex-wrap gap-2 lg:flex-col lg:gap-0.5">
            {doc.sections.map((section) => (
              <li key={section.id}>
                <a
                  href={`#${section.id}`}
                  className="block rounded-lg border border-slate-200 bg-white px-3 py-1.5 text-sm text-slate-600 transition-colors hover:border-slate-300 hover:text-slate-900 lg:border-transparent lg:bg-transparent lg:py-2 lg:hover:bg-slate-100"
                >
                  {section.title}
                </a>
              </li>
            ))}
          </ol>
        </div>
      </nav>
      <article className="max-w-3xl min-w-0">
        <DocsSections sections={doc.sections} />
        {publicPage && (
          <div className="mt-12 flex flex-col gap-4 rounded-2xl border border-indigo-100 bg-indigo-50/70 p-6 sm:flex-row sm:items-center sm:justify-between">
            <div>
              <h2 className="text-lg font-semibold text-slate-900">Готовы попробовать?</h2>
              <p className="mt-1 text-[15px] text-slate-600">Регистрация занимает около 30 секунд, бонус на баланс — после подтверждения e-mail.</p>
            </div>
            <div className="flex flex-col gap-2 sm:flex-row">
              <ButtonLink href="/register">Создать аккаунт</ButtonLink>
              <ButtonLink href="/app/models" variant="secondary">
                Каталог моделей
              </ButtonLink>
            </div>
          </div>
        )}
      </article>
    </div>
  )
}

/** /app/docs, inside the signed-in layout. */
export function DocsPage() {
  return (
    <>
      <div className="mb-6 sm:mb-8">
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-[28px]">Документация</h1>
        <p className="mt-1.5 text-[15px] text-slate-500">Как подключиться к API и начать работу.</p>
      </div>
      <DocsContent publicPage={false} />
    </>
  )
}

/** /docs: the same text for visitors and search engines. */
export function PublicDocsPage() {
  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-10 sm:px-6 sm:py-14">
      <div className="mb-8 max-w-3xl">
        <p className="text-sm font-medium text-indigo-700">Документация API</p>
        <h1 className="mt-2 text-2xl leading-tight font-semibold tracking-tight break-words text-slate-900 min-[400px]:text-[28px] sm:text-4xl">Документация</h1>
        <p className="mt-3 text-[17px] leading-7 text-slate-600">
          Как подключиться к OpenAI-совместимому API AI Gateway, оплачивать запросы в рублях и работать с текстовыми и графическими моделями.
        </p>
      </div>
      <DocsContent publicPage />
    </div>
  )
}
