// The latest 10 chats as a row of chips, the 'new chat' button first; a chat opens on click and
// is deleted after the spec's 'Удалить?' confirmation.
import { useState } from 'react'
import { ConfirmDialog } from '../../components/dialog'
import { ChatIcon, TrashIcon } from '../../components/icons'
import { cn } from '../../lib/cn'
import { formatDateTime } from '../../../src/content/format'
import { HISTORY_SIZE, type ChatSummary } from './chats-api'
import { PlusIcon } from './icons'

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
    <nav aria-label="История чатов" className="mb-4 flex min-w-0 items-center gap-2">
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
        <ul data-testid="chat-history" className="flex min-w-0 gap-2 overflow-x-auto py-1 [scrollbar-width:thin]">
          {loading && !chats &&
            [0, 1, 2].map((i) => (
              <li key={i} aria-hidden="true" className="h-9 w-36 shrink-0 animate-pulse rounded-lg bg-slate-200/70" />
            ))}
          {chats && shown.length === 0 && (
            <li className="flex h-9 items-center px-1 text-sm whitespace-nowrap text-slate-500">Чатов пока нет</li>
          )}
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
