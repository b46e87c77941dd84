// One example in several languages as tabs (curl | JavaScript | Python): the docs stay readable
// instead of three blocks in a row. Choosing a language switches every group that has it.
import { createContext, type KeyboardEvent, useContext, useId, useRef, useState } from 'react'
import type { Block } from '../../../src/content/rich-text'
import { CopyButton } from '../../components/copy-button'
import { cn } from '../../lib/cn'

type CodeBlock = Extract<Block, { type: 'code' }>

/** The tab label last chosen anywhere on the page ('Python'); groups that have it show it. */
export const PreferredTab = createContext<{ label: string; choose: (label: string) => void }>({ label: '', choose: () => {} })

export function usePreferredTabState() {
  const [label, setLabel] = useState('')
  return { label, choose: setLabel }
}

export function CodeTabs({ blocks }: { blocks: CodeBlock[] }) {
  const preferred = useContext(PreferredTab)
  const [own, setOwn] = useState(0)
  const id = useId()
  const tabRefs = useRef<Array<HTMLButtonElement | null>>([])
  const labels = blocks.map((b) => b.title ?? b.lang)
  const followed = labels.indexOf(preferred.label)
  const active = followed >= 0 ? followed : Math.min(own, blocks.length - 1)

  const choose = (index: number, focus = false) => {
    setOwn(index)
    preferred.choose(labels[index]!)
    if (focus) tabRefs.current[index]?.focus()
  }
  // Arrow keys, Home and End move between tabs (the WAI-ARIA tabs pattern, automatic activation).
  const onKeyDown = (e: KeyboardEvent) => {
    const last = blocks.length - 1
    const next = { ArrowRight: active === last ? 0 : active + 1, ArrowLeft: active === 0 ? last : active - 1, Home: 0, End: last }[e.key]
    if (next === undefined) return
    e.preventDefault()
    choose(next, true)
  }

  return (
    <figure className="my-4 min-w-0 overflow-hidden rounded-xl border border-slate-800 bg-slate-900">
      <div className="flex items-center justify-between gap-2 border-b border-white/10 pr-1.5">
        <div role="tablist" aria-label="Варианты примера" onKeyDown={onKeyDown} className="flex min-w-0 overflow-x-auto pl-1.5">
          {labels.map((label, i) => (
            <button
              key={label}
              ref={(el) => {
                tabRefs.current[i] = el
              }}
              type="button"
              role="tab"
              id={`${id}-tab-${i}`}
              aria-selected={i === active}
              aria-controls={`${id}-panel-${i}`}
              tabIndex={i === active ? 0 : -1}
              onClick={() => choose(i)}
              className={cn(
                '-mb-px h-10 shrink-0 border-b-2 px-2.5 text-xs font-medium whitespace-nowrap transition-colors focus-visible:outline-offset-[-2px]',
                i === active ? 'border-indigo-400 text-white' : 'border-transparent text-slate-400 hover:text-slate-200',
              )}
            >
              {label}
            </button>
          ))}
        </div>
        <CopyButton text={blocks[active]!.code} className="shrink-0 text-slate-300 hover:bg-white/10 hover:text-white" />
      </div>
      {blocks.map((block, i) => (
        <div key={i} role="tabpanel" id={`${id}-panel-${i}`} aria-labelledby={`${id}-tab-${i}`} hidden={i !== active}>
          <pre tabIndex={0} className="overflow-x-auto p-4 font-mono text-[13px] leading-6 text-slate-100">
            <code>{block.code}</code>
          </pre>
        </div>
      ))}
    </figure>
  )
}
