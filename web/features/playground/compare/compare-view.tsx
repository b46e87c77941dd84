// «Сравнить»: one prompt to two or three models at once, their answers streamed side by side
// (stacked on a phone), each with its cost and time (issue 29). Every column is a chat session of
// its own (use-chat-session.ts), kept on this screen only: a comparison is not saved in the history.
// The estimate is the server's for all of them together, as their holds would be placed.
import { type ReactNode, useId, useState } from 'react'
import { formatPrice } from '../../../../src/content/format'
import { Card } from '../../../components/card'
import { CloseIcon, SlidersIcon } from '../../../components/icons'
import { cn } from '../../../lib/cn'
import { Composer } from '../chat/composer'
import { type MessageActions, MessageList, secondsLabel } from '../chat/messages'
import { PlusIcon } from '../icons'
import { ModelPicker } from '../models/model-picker'
import { answersText, type PlaygroundModel } from '../models/models'
import { type EstimateBody, useEstimate } from '../requests/estimate'
import { chatBody, userMessage } from '../requests/request-body'
import { type ChatSession, useChatSession } from '../session/use-chat-session'
import type { Settings } from '../types'

/** At most this many models side by side (the issue's «up to 3»). */
export const MAX_COMPARED = 3
export const MIN_COMPARED = 2
/** Who joins a comparison when the customer did not say: well-known, inexpensive, different makers. */
const PARTNERS = ['anthropic/claude-3-haiku', 'openai/gpt-4o-mini', 'google/gemini-2.0-flash-001', 'mistralai/mistral-small', 'openai/gpt-3.5-turbo']

/** The models a comparison opens with: those asked for (the catalogue's «Сравнить»), else the chat's model and two partners. */
export function initialCompared(asked: string[], current: string, models: PlaygroundModel[]): string[] {
  const ok = (id: string) => {
    const m = models.find((x) => x.id === id)
    return !m || answersText(m) // unknown until the catalogue loads: kept
  }
  const picked = [...new Set(asked.filter(ok))].slice(0, MAX_COMPARED)
  if (picked.length >= MIN_COMPARED) return picked
  const pool = [current, ...PARTNERS, ...models.filter(answersText).map((m) => m.id)]
  for (const id of pool) {
    if (picked.length >= MAX_COMPARED) break
    if (!picked.includes(id) && ok(id) && (models.length === 0 || models.some((m) => m.id === id))) picked.push(id)
  }
  return picked
}

/** The cost and time of a column's latest answer. */
function LastAnswer({ session }: { session: ChatSession }) {
  const last = session.messages.findLast((m) => m.role === 'assistant')
  if (!last) return null
  const { costRub, elapsedMs } = last.metadata
  if (last.status === 'streaming') return <span className="text-xs text-slate-500">Отвечает…</span>
  return (
    <span className="text-xs whitespace-nowrap text-slate-600 tabular-nums" data-testid="compare-summary">
      {costRub !== undefined && <>{formatPrice(Number(costRub))}</>}
      {costRub !== undefined && typeof elapsedMs === 'number' && ' · '}
      {typeof elapsedMs === 'number' && secondsLabel(elapsedMs)}
    </span>
  )
}

function Column({
  index,
  session,
  options,
  loading,
  removable,
  onModel,
  onRemove,
  modelName,
}: {
  index: number
  session: ChatSession
  options: PlaygroundModel[]
  loading: boolean
  removable: boolean
  onModel: (id: string) => void
  onRemove: () => void
  modelName: (id: string) => string
}) {
  const pickerId = useId()
  const actions: MessageActions = { onRegenerate: (key) => session.regenerate(key), onEdit: () => undefined, enabled: !session.pending }
  const name = modelName(session.modelId)
  return (
    <Card className="flex min-h-[16rem] min-w-0 flex-col overflow-hidden max-lg:max-h-[55dvh] lg:min-h-0" data-testid="compare-column" data-model-id={session.modelId}>
      <div className="shrink-0 space-y-1 border-b border-slate-200 px-3 py-2.5">
        <label htmlFor={pickerId} className="sr-only">
          Модель {index + 1}
        </label>
        <div className="flex items-center gap-1.5">
          <div className="min-w-0 flex-1">
            <ModelPicker id={pickerId} models={options} value={session.modelId} loading={loading} disabled={session.pending} onChange={onModel} />
          </div>
          {removable && (
            <button
              type="button"
              onClick={onRemove}
              disabled={session.pending}
              aria-label={`Убрать ${name} из сравнения`}
              className="shrink-0 rounded-md p-1.5 text-slate-400 hover:bg-slate-100 hover:text-slate-700 disabled:opacity-40"
            >
              <CloseIcon size={14} />
            </button>
          )}
        </div>
        <div className="flex min-h-4 justify-end">
          <LastAnswer session={session} />
        </div>
      </div>
      <MessageList
        messages={session.messages}
        loading={false}
        label={`Ответы ${name}`}
        empty={<p className="flex h-full items-center justify-center px-4 py-8 text-center text-sm text-slate-500">Ответ {name} появится здесь</p>}
        actions={actions}
        modelName={modelName}
        compact
      />
    </Card>
  )
}

export function CompareView({
  models,
  modelsLoading,
  initial,
  settings,
  balance,
  input,
  onInput,
  onCharged,
  onReduceTokens,
  wide,
  mic,
  banner,
  onOpenSettings,
}: {
  models: PlaygroundModel[]
  modelsLoading: boolean
  /** the models it opens with (2–3) */
  initial: string[]
  settings: Settings
  balance: number | undefined
  input: string
  onInput: (value: string) => void
  onCharged: () => void
  onReduceTokens: (tokens: number) => void
  wide: boolean
  mic?: ReactNode
  banner?: ReactNode
  /** the shared settings (temperature, answer length, system prompt), in a drawer */
  onOpenSettings: () => void
}) {
  const options = models.filter(answersText)
  const common = { models, settings, persist: false, onCharged }
  // Three sessions always (hooks keep their order); the first `count` are on screen.
  const all = [
    useChatSession({ ...common, initialModel: initial[0] ?? options[0]?.id ?? '' }),
    useChatSession({ ...common, initialModel: initial[1] ?? options[1]?.id ?? '' }),
    useChatSession({ ...common, initialModel: initial[2] ?? options[2]?.id ?? options[0]?.id ?? '' }),
  ]
  const [count, setCount] = useState(Math.max(MIN_COMPARED, Math.min(MAX_COMPARED, initial.length)))
  const sessions = all.slice(0, count)
  const pending = sessions.some((s) => s.pending)
  const modelName = (id: string) => {
    const m = models.find((x) => x.id === id)
    return m?.name || id
  }

  // One estimate for all: the server plans their holds together (POST /api/playground/estimate, compare).
  const draft = input.trim()
  const estimate = useEstimate(
    pending || modelsLoading
      ? null
      : JSON.stringify([
          'compare',
          sessions.map((s) => [s.modelId, s.messages.map((m) => [m.key, m.status, m.content.length])]),
          draft,
          settings.system.trim(),
          settings.temperature,
          settings.maxTokens,
          balance,
        ]),
    async (): Promise<EstimateBody> => {
      const question = userMessage('draft', input, [])
      return { compare: await Promise.all(sessions.map((s) => chatBody(s.modelId, [...s.messages, question], settings))) }
    },
  )

  async function send() {
    const text = input.trim()
    if (!text || pending) return
    onInput('')
    const answered = await Promise.all(sessions.map((s) => s.sendMessage(text, [])))
    // Nobody answered: the question goes back to the field, to edit or try again.
    if (!answered.some(Boolean)) onInput(text)
  }

  function remove(at: number) {
    // the columns after it move one to the left: their models (the conversations start afresh)
    const ids = sessions.map((s) => s.modelId).filter((_, i) => i !== at)
    for (const s of all) s.resetChat()
    for (const [i, id] of ids.entries()) all[i]!.selectModel(id)
    setCount(count - 1)
  }

  function add() {
    const taken = new Set(sessions.map((s) => s.modelId))
    const next = options.find((m) => !taken.has(m.id))
    const session = all[count]!
    session.resetChat()
    if (next) session.selectModel(next.id)
    setCount(count + 1)
  }

  const started = sessions.some((s) => s.messages.length > 0)
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-3" data-testid="compare-view">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-600">Один вопрос — {count} модели сразу: ответы, стоимость и время рядом. Сравнение не сохраняется в истории чатов.</p>
        <div className="flex shrink-0 gap-2">
          <button
            type="button"
            onClick={onOpenSettings}
            aria-haspopup="dialog"
            className="inline-flex h-8 items-center gap-1.5 rounded-lg border border-slate-200 bg-white px-3 text-sm font-medium text-slate-700 hover:bg-slate-50"
          >
            <SlidersIcon size={14} className="text-slate-500" />
            Настройки
          </button>
          {started && (
            <button
              type="button"
              onClick={() => {
                for (const s of sessions) s.resetChat()
              }}
              disabled={pending}
              className="inline-flex h-8 items-center rounded-lg border border-slate-200 bg-white px-3 text-sm font-medium text-slate-700 hover:bg-slate-50 disabled:opacity-50"
            >
              Очистить
            </button>
          )}
          {count < MAX_COMPARED && (
            <button
              type="button"
              onClick={add}
              disabled={pending}
              className="inline-flex h-8 items-center gap-1.5 rounded-lg border border-slate-200 bg-white px-3 text-sm font-medium text-slate-700 hover:bg-slate-50 disabled:opacity-50"
            >
              <PlusIcon size={14} />
              Добавить модель
            </button>
          )}
        </div>
      </div>
      {/* Stacked columns scroll in their own area above the composer, never under it (issue 33);
          relative, so what is positioned inside (screen-reader labels) scrolls and clips with them. */}
      <div
        className={cn('relative grid min-h-0 flex-1 gap-3 max-lg:overflow-y-auto lg:grid-rows-[minmax(0,1fr)]', count === 3 ? 'lg:grid-cols-3' : 'lg:grid-cols-2')}
        data-testid="compare-columns"
      >
        {sessions.map((s, i) => (
          <Column
            key={i}
            index={i}
            session={s}
            options={options.some((m) => m.id === s.modelId) || modelsLoading ? options : [...options, s.model]}
            loading={modelsLoading}
            removable={count > MIN_COMPARED}
            onModel={(id) => s.selectModel(id)}
            onRemove={() => remove(i)}
            modelName={modelName}
          />
        ))}
      </div>
      <Card className="shrink-0 overflow-hidden max-sm:-mx-4 max-sm:rounded-none max-sm:border-x-0 max-sm:border-b-0">
        <Composer
          value={input}
          onChange={onInput}
          onSend={() => void send()}
          onStop={() => {
            for (const s of sessions) s.stop()
          }}
          onAttach={() => undefined}
          onRemoveAttachment={() => undefined}
          attachments={[]}
          pending={pending}
          accept=""
          acceptHint=""
          placeholder={wide ? `Вопрос для ${count} моделей…` : 'Вопрос…'}
          estimate={estimate}
          estimateHint={`Все ${count} запроса вместе: промпт и до ${settings.maxTokens} токенов ответа каждой модели; списывается фактическая стоимость`}
          onReduceTokens={onReduceTokens}
          mic={mic}
          banner={banner}
        />
      </Card>
    </div>
  )
}
