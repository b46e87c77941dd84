// The latest 10 chats as a row of chips, the 'new chat' button first; a chat opens on click and
// is deleted after the spec's 'Удалить?' confirmation. A row wider than the screen scrolls
// sideways; a fading edge with an arrow shows on each side that has more chats.
import { useCallback, useEffect, useRef, useState } from 'react'
import { formatDateTime } from '../../../../src/content/format'
import { ConfirmDialog } from '../../../components/dialog'
import { ArrowLeftIcon, ArrowRightIcon, ChatIcon, TrashIcon } from '../../../components/icons'
import { cn } from '../../../lib/cn'
import { PlusIcon } from '../icons'
import { type ChatSummary, HISTORY_SIZE } from './chats-api'

export function HistoryBar({
  chats,
  loading,
  activeId,
  disabled,
  onNew,
  onOpen,
  onDelete,
}: {
  chats: ChatSummary[] | undefined
  loading: boolean
  activeId: string | null
  disabled: boolean
  onNew: () => void
  onOpen: (chat: ChatSummary) => void
  onDelete: (chat: ChatSummary) => Promise<void>
}) {
  const [confirming, setConfirming] = useState<ChatSummary | null>(null)
  const [deleting, setDeleting] = useState(false)
  const shown = (chats ?? []).slice(0, HISTORY_SIZE)
  const { ref: row, more, scrollBy } = useOverflowHint(shown.length)

  async function confirmDelete() {
    if (!confirming) return
    setDeleting(true)
    try {
      await onDelete(confirming)
      setConfirming(null)
    } finally {
      setDeleting(false)
    }
  }

  return (
    <nav aria-label="История чатов" className="flex min-w-0 items-center gap-2">
      <button
        type="button"
        onClick={onNew}
        disabled={disabled}
        className="inline-flex h-9 shrink-0 items-center gap-1.5 rounded-lg bg-indigo-600 px-3 text-sm font-medium text-white shadow-sm transition-colors hover:bg-indigo-500 disabled:cursor-not-allowed disabled:opacity-60"
      >
        <PlusIcon size={16} />
        Новый чат
      </button>
      <div className="relative min-w-0 flex-1">
        <ul ref={row} data-testid="chat-history" className="flex min-w-0 gap-2 overflow-x-auto py-1 [scrollbar-width:none]">
          {loading && !chats && [0, 1, 2].map((i) => <li key={i} aria-hidden="true" className="h-9 w-36 shrink-0 animate-pulse rounded-lg bg-slate-200/70" />)}
          {chats && shown.length === 0 && <li className="flex h-9 items-center px-1 text-sm whitespace-nowrap text-slate-500">Чатов пока нет</li>}
          {shown.map((chat) => {
            const active = chat.id === activeId
            return (
              <li key={chat.id} data-testid="history-chat" data-chat-id={chat.id} className="flex shrink-0">
                <div
                  className={cn(
                    'group flex h-9 max-w-72 items-center rounded-lg border text-sm transition-colors',
                    active ? 'border-indigo-200 bg-indigo-50 text-indigo-800' : 'border-slate-200 bg-white text-slate-700 hover:border-slate-300 hover:bg-slate-50',
                  )}
                >
                  <button
                    type="button"
                    onClick={() => onOpen(chat)}
                    disabled={disabled}
                    aria-current={active ? 'true' : undefined}
                    title={`${chat.title} — ${formatDateTime(chat.updatedAt)}`}
                    className="flex h-full min-w-0 items-center gap-1.5 pr-1 pl-3 font-medium disabled:cursor-not-allowed"
                  >
                    <ChatIcon size={14} className={cn('shrink-0', active ? 'text-indigo-500' : 'text-slate-400')} />
                    <span className="truncate">{chat.title}</span>
                  </button>
                  <button
                    type="button"
                    onClick={() => setConfirming(chat)}
                    disabled={disabled}
                    aria-label={`Удалить чат «${chat.title}»`}
                    title="Удалить чат"
                    className="mr-1 flex h-7 w-7 shrink-0 items-center justify-center rounded-md text-slate-400 transition-colors hover:bg-red-50 hover:text-red-600 disabled:cursor-not-allowed"
                  >
                    <TrashIcon size={14} />
                  </button>
                </div>
              </li>
            )
          })}
        </ul>
        {(['left', 'right'] as const).map((side) => (
          <div
            key={side}
            data-testid={`history-hint-${side}`}
            data-visible={more[side]}
            className={cn(
              'pointer-events-none absolute inset-y-0 flex w-14 items-center transition-opacity',
              side === 'left' ? 'left-0 justify-start bg-linear-to-r' : 'right-0 justify-end bg-linear-to-l',
              'from-slate-50 via-slate-50/90 to-transparent',
              more[side] ? 'opacity-100' : 'opacity-0',
            )}
          >
            {more[side] && (
              <button
                type="button"
                onClick={() => scrollBy(side === 'left' ? -1 : 1)}
                aria-label={side === 'left' ? 'Прокрутить историю влево' : 'Прокрутить историю вправо'}
                className="pointer-events-auto flex h-7 w-7 items-center justify-center rounded-full border border-slate-200 bg-white text-slate-600 shadow-sm hover:text-slate-900"
              >
                {side === 'left' ? <ArrowLeftIcon size={14} /> : <ArrowRightIcon size={14} />}
              </button>
            )}
          </div>
        ))}
      </div>
      <ConfirmDialog
        open={confirming !== null}
        title="Удалить?"
        message={confirming ? `Чат «${confirming.title}» и все его сообщения будут удалены без возможности восстановления.` : ''}
        confirmLabel="Удалить"
        tone="danger"
        loading={deleting}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setConfirming(null)}
      />
    </nav>
  )
}

/** Whether the row has more chats to the left / right of what is shown; re-measured on scroll and resize. */
function useOverflowHint(count: number) {
  const ref = useRef<HTMLUListElement>(null)
  const [more, setMore] = useState({ left: false, right: false })
  const measure = useCallback(() => {
    const el = ref.current
    if (!el) return
    const left = el.scrollLeft > 2
    const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 2
    setMore((m) => (m.left === left && m.right === right ? m : { left, right }))
  }, [])
  // biome-ignore lint/correctness/useExhaustiveDependencies: count is the trigger: a chat added or removed changes the row's width
  useEffect(() => {
    const el = ref.current
    if (!el) return
    measure()
    el.addEventListener('scroll', measure, { passive: true })
    const observer = new ResizeObserver(measure)
    observer.observe(el)
    return () => {
      el.removeEventListener('scroll', measure)
      observer.disconnect()
    }
  }, [measure, count])
  const scrollBy = (direction: -1 | 1) => ref.current?.scrollBy({ left: direction * Math.max(160, ref.current.clientWidth * 0.7), behavior: 'smooth' })
  return { ref, more, scrollBy }
}
