// The Playground's chat: one session (use-chat-session.ts) as a card — its title and model, the
// conversation and the composer. Everything it shows comes from the session and the page.
import type { ReactNode } from 'react'
import { Card } from '../../../components/card'
import { ChatIcon, SlidersIcon } from '../../../components/icons'
import type { EstimateState } from '../requests/estimate'
import type { ChatSession } from '../session/use-chat-session'
import type { Attachment } from '../types'
import { Composer } from './composer'
import { type MessageActions, MessageList } from './messages'

const SUGGESTIONS = [
  'Объясни, что такое квантовая запутанность, простыми словами',
  'Напиши функцию на Python, которая проверяет, является ли строка палиндромом',
  'Придумай пять названий для уютной кофейни у моря',
]

/** What the empty conversation says: how to start, by what the model does. */
function EmptyChat({ session, voice, onSuggestion }: { session: ChatSession; voice: string; onSuggestion: (text: string) => void }) {
  const { model, speechMode, effectiveMode } = session
  return (
    <div className="flex h-full flex-col items-center justify-center px-4 py-10 text-center">
      <div className="mb-4 flex h-12 w-12 items-center justify-center rounded-full bg-indigo-50 text-indigo-600">
        <ChatIcon size={22} />
      </div>
      <p className="text-[15px] font-medium text-slate-800">{speechMode ? 'Введите текст для озвучки' : effectiveMode === 'image' ? 'Опишите изображение' : 'Начните диалог'}</p>
      <p className="mt-1 max-w-sm text-sm text-slate-500">
        {speechMode
          ? `${model.name || model.id} озвучит текст голосом ${voice}: аудио можно прослушать и скачать. Озвучка не сохраняется в истории чатов.`
          : effectiveMode === 'image'
            ? `${model.name || model.id} нарисует картинку по описанию. Оценка стоимости — в настройках и под полем ввода.`
            : `Модель: ${model.name || model.id}. Чат сохранится в истории после первого сообщения; модель можно сменить в любой момент — разговор продолжится.`}
      </p>
      {effectiveMode === 'chat' && !speechMode && (
        <div className="mt-5 flex w-full max-w-md flex-col gap-2">
          {SUGGESTIONS.map((s) => (
            <button
              key={s}
              type="button"
              onClick={() => onSuggestion(s)}
              className="rounded-lg border border-slate-200 bg-white px-3 py-2 text-left text-sm text-slate-600 transition-colors hover:border-indigo-200 hover:bg-indigo-50/50 hover:text-slate-900"
            >
              {s}
            </button>
          ))}
        </div>
      )}
    </div>
  )
}

export function ChatView({
  session,
  wide,
  drawerOpen,
  onOpenDrawer,
  input,
  onInput,
  attachments,
  onAttach,
  onRemoveAttachment,
  onSend,
  accept,
  acceptHint,
  estimate,
  estimateHint,
  onReduceTokens,
  actions,
  modelName,
  voiceName,
  mic,
  banner,
}: {
  session: ChatSession
  wide: boolean
  drawerOpen: boolean
  onOpenDrawer: () => void
  input: string
  onInput: (value: string) => void
  attachments: Attachment[]
  onAttach: (files: File[]) => void
  onRemoveAttachment: (key: string) => void
  onSend: () => void
  accept: string
  acceptHint: string
  estimate: EstimateState
  estimateHint: string
  onReduceTokens: (tokens: number) => void
  actions: MessageActions
  modelName: (id: string) => string
  voiceName: string
  mic?: ReactNode
  banner?: ReactNode
}) {
  const { chat, model, speechMode, effectiveMode } = session
  const placeholder = speechMode
    ? wide
      ? 'Текст для озвучки…'
      : 'Текст…'
    : effectiveMode === 'image'
      ? wide
        ? 'Опишите изображение…'
        : 'Описание…'
      : wide
        ? 'Напишите сообщение…'
        : 'Сообщение…'
  return (
    // a phone: edge to edge and down to the screen's bottom, every pixel of width for the text
    <Card className="flex min-h-0 min-w-0 flex-col overflow-hidden max-sm:-mx-4 max-sm:rounded-none max-sm:border-x-0 max-sm:border-b-0" data-testid="chat-card">
      <div className="flex min-w-0 shrink-0 items-center justify-between gap-3 border-b border-slate-200 px-4 py-2 sm:px-5 sm:py-3">
        <div className="min-w-0">
          <h2 className="truncate text-sm font-semibold text-slate-900" data-testid="chat-title">
            {chat?.title ?? 'Новый чат'}
          </h2>
          <p className="truncate font-mono text-xs text-slate-600">{model.id}</p>
        </div>
        <div className="flex shrink-0 items-center gap-2">
          {(effectiveMode === 'image' || speechMode) && (
            <span className="hidden rounded-full bg-indigo-50 px-2.5 py-1 text-xs font-medium text-indigo-700 ring-1 ring-indigo-100 ring-inset sm:inline">
              {speechMode ? 'Озвучка текста' : 'Генерация изображений'}
            </span>
          )}
          {!wide && (
            <button
              type="button"
              onClick={onOpenDrawer}
              aria-label="Модель и настройки"
              aria-haspopup="dialog"
              aria-expanded={drawerOpen}
              className="inline-flex h-9 items-center gap-1.5 rounded-lg border border-slate-200 bg-white px-2.5 text-sm font-medium text-slate-700 shadow-xs hover:bg-slate-50"
            >
              <SlidersIcon size={16} className="text-slate-500" />
              {/* a phone keeps the width for the chat's title */}
              <span className="sm:hidden">Настройки</span>
              <span className="hidden sm:inline">Модель и настройки</span>
            </button>
          )}
        </div>
      </div>
      <MessageList
        messages={session.messages}
        loading={session.chatLoading}
        empty={<EmptyChat session={session} voice={voiceName} onSuggestion={onInput} />}
        actions={actions}
        modelName={modelName}
      />
      <Composer
        value={input}
        onChange={onInput}
        onSend={onSend}
        onStop={session.stop}
        onAttach={onAttach}
        onRemoveAttachment={onRemoveAttachment}
        attachments={effectiveMode === 'image' || speechMode ? [] : attachments}
        pending={session.pending}
        accept={effectiveMode === 'image' || speechMode ? '' : accept}
        acceptHint={acceptHint}
        placeholder={placeholder}
        estimate={estimate}
        estimateHint={estimateHint}
        onReduceTokens={effectiveMode === 'chat' && !speechMode ? onReduceTokens : undefined}
        mic={mic}
        banner={banner}
      />
    </Card>
  )
}
