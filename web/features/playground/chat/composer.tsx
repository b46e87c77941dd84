// The input: Enter sends, Shift+Enter adds a line; attachments as chips above the text; Stop while
// a reply is on its way (the field is locked with a spinner until then); the microphone (dictation.tsx)
// beside the field, its recording bar above it. On a phone the field has the whole width and the
// buttons and the estimate share a row under it.
import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef } from 'react'
import { Link } from 'wouter'
import { formatInteger, formatPrice, pluralRu } from '../../../../src/content/format'
import { AlertCircleIcon, CloseIcon } from '../../../components/icons'
import { Spinner } from '../../../components/spinner'
import { cn } from '../../../lib/cn'
import { useMediaQuery } from '../../../lib/use-media-query'
import { formatSize, kindOf } from '../attachments/attachments'
import { FileIcon, ImageIcon, PaperclipIcon, SendIcon, StopIcon } from '../icons'
import { type EstimateState, estimateDisplay, sendGuard } from '../requests/estimate'
import type { Attachment } from '../types'

function AttachmentChip({ item, onRemove, disabled }: { item: Attachment; onRemove: () => void; disabled: boolean }) {
  const isImage = item.upload ? kindOf(item.upload.mimetype) === 'image' : !!item.preview
  return (
    <li
      data-testid="attachment-chip"
      data-status={item.status}
      className={cn(
        'flex h-10 max-w-64 min-w-0 items-center gap-2 rounded-lg border bg-white pr-1 pl-1.5 text-xs',
        item.status === 'failed' ? 'border-red-200 bg-red-50 text-red-700' : 'border-slate-200 text-slate-700',
      )}
      title={item.error ?? item.name}
    >
      {/* The preview only once the server has accepted the picture: a broken blob: image is a CSP (connect-src) violation in Chromium. */}
      {item.preview && isImage && item.status === 'ready' ? (
        <img src={item.preview} alt="" className="h-7 w-7 shrink-0 rounded object-cover" />
      ) : (
        <span className="flex h-7 w-7 shrink-0 items-center justify-center rounded bg-slate-100 text-slate-500">{isImage ? <ImageIcon size={14} /> : <FileIcon size={14} />}</span>
      )}
      <span className="min-w-0">
        <span className="block truncate font-medium">{item.name}</span>
        <span className={cn('block truncate', item.status === 'failed' ? 'text-red-600' : 'text-slate-500')}>
          {item.status === 'uploading' ? 'Загрузка…' : item.status === 'failed' ? item.error : formatSize(item.size)}
        </span>
      </span>
      {item.status === 'uploading' ? (
        <Spinner size={14} className="mx-1.5 shrink-0 text-slate-400" />
      ) : (
        <button
          type="button"
          onClick={onRemove}
          disabled={disabled}
          aria-label={`Убрать файл ${item.name}`}
          className="flex h-7 w-7 shrink-0 items-center justify-center rounded-md text-slate-400 hover:bg-slate-100 hover:text-slate-700"
        >
          <CloseIcon size={14} />
        </button>
      )}
    </li>
  )
}

export function Composer({
  value,
  onChange,
  onSend,
  onStop,
  onAttach,
  onRemoveAttachment,
  attachments,
  pending,
  accept,
  acceptHint,
  placeholder,
  estimate,
  estimateHint,
  mic,
  banner,
  onReduceTokens,
}: {
  value: string
  onChange: (value: string) => void
  onSend: () => void
  onStop: () => void
  onAttach: (files: File[]) => void
  onRemoveAttachment: (key: string) => void
  attachments: Attachment[]
  pending: boolean
  /** the file picker's accept list for this model; empty: the model takes no attachments */
  accept: string
  /** what the attach button's tooltip says the model takes */
  acceptHint: string
  placeholder: string
  /** the server's bound for this request (POST /api/playground/estimate) */
  estimate: EstimateState
  /** what the figure means, shown as its tooltip */
  estimateHint: string
  /** the dictation button, beside the field */
  mic?: ReactNode
  /** shown above the field (the recording in progress) */
  banner?: ReactNode
  /** «Уменьшить ответ до N токенов»: sets max tokens to what the money affords (absent: no such setting here) */
  onReduceTokens?: (tokens: number) => void
}) {
  const textarea = useRef<HTMLTextAreaElement>(null)
  const picker = useRef<HTMLInputElement>(null)
  const uploading = attachments.some((a) => a.status === 'uploading')
  const ready = attachments.filter((a) => a.status === 'ready')
  // Over what may be spent the server would refuse (402): «Отправить» is off before that, with the
  // reason and one way out (issue 29) — a shorter answer that fits, or topping up. The estimate
  // follows the balance, so a top-up in another tab unlocks it within the balance's refresh.
  const guard = sendGuard(estimate)
  const reduceTo = onReduceTokens ? guard.reduceTo : null
  const canSend = !pending && !uploading && !guard.blocked && (value.trim() !== '' || ready.length > 0)
  const { figure, overBalance, title, state } = estimateDisplay(estimate, estimateHint)
  const warningId = useId()
  // A budget, not the balance, is what stops this request: topping up would not help.
  const limitedBy = estimate.data?.limitedBy
  const budget = limitedBy === 'key' || limitedBy === 'member' ? limitedBy : null
  const canAttach = accept !== ''
  // below Tailwind's sm: the field on a row of its own (issue 33: at least 85 % of a phone's width)
  const phone = !useMediaQuery('(min-width: 640px)')

  // grows with the text up to about eight lines (a quarter of a short phone screen), so the field
  // never pushes itself or the send button out of the viewport
  useEffect(() => {
    const fit = () => {
      const el = textarea.current
      if (!el) return
      el.style.height = ''
      // an empty field is one line whatever the placeholder does
      if (value) el.style.height = `${Math.min(el.scrollHeight, 200, Math.max(72, Math.round(window.innerHeight * 0.22)))}px`
    }
    fit()
    window.addEventListener('resize', fit)
    return () => window.removeEventListener('resize', fit)
  }, [value])

  // back to the field when the reply is done
  useEffect(() => {
    if (!pending) textarea.current?.focus({ preventScroll: true })
  }, [pending])

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      if (canSend) onSend()
    }
  }

  const attach = canAttach && (
    <>
      <button
        type="button"
        onClick={() => picker.current?.click()}
        disabled={pending}
        aria-label="Прикрепить файл"
        title={`Прикрепить файл: ${acceptHint} — до 20 МБ`}
        className="flex h-9 w-9 shrink-0 items-center justify-center rounded-lg text-slate-500 transition-colors hover:bg-slate-100 hover:text-slate-800 disabled:cursor-not-allowed disabled:opacity-50"
      >
        <PaperclipIcon size={18} />
      </button>
      <input
        ref={picker}
        type="file"
        multiple
        accept={accept}
        className="hidden"
        data-testid="file-input"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])]
          e.target.value = ''
          if (files.length) onAttach(files)
        }}
      />
    </>
  )
  const field = (
    <textarea
      ref={textarea}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      onKeyDown={onKeyDown}
      disabled={pending}
      rows={1}
      placeholder={placeholder}
      aria-label="Сообщение"
      className={cn(
        'max-h-[200px] min-h-9 resize-none bg-transparent px-2 py-1.5 text-[15px] leading-6 text-slate-900 placeholder:text-slate-400 focus:outline-none disabled:cursor-not-allowed disabled:text-slate-500',
        phone ? 'w-full' : 'flex-1',
      )}
    />
  )
  const sendOrStop = pending ? (
    <button
      type="button"
      onClick={onStop}
      aria-label="Остановить"
      className="inline-flex h-9 shrink-0 items-center gap-2 rounded-lg bg-slate-900 px-3 text-sm font-medium text-white transition-colors hover:bg-slate-700"
    >
      <Spinner size={14} />
      <StopIcon size={12} />
      <span className="hidden sm:inline">Стоп</span>
    </button>
  ) : (
    <button
      type="button"
      onClick={onSend}
      disabled={!canSend}
      aria-label="Отправить"
      aria-describedby={guard.blocked ? warningId : undefined}
      title={guard.blocked ? 'Отправка недоступна: запрос дороже, чем можно потратить' : undefined}
      className="flex h-9 w-9 shrink-0 items-center justify-center rounded-lg bg-indigo-600 text-white shadow-sm transition-colors hover:bg-indigo-500 disabled:cursor-not-allowed disabled:bg-slate-300 disabled:shadow-none"
    >
      <SendIcon size={18} />
    </button>
  )
  const estimateLine = (
    <span data-testid="cost-estimate" data-state={state} title={title} className={cn('tabular-nums', overBalance && 'text-red-600')}>
      {figure === null ? (
        <span className="inline-flex items-center gap-1">
          <AlertCircleIcon size={12} /> Цена этой модели неизвестна заранее
        </span>
      ) : typeof figure === 'number' ? (
        <>
          Оценка: до <span className={cn('font-medium', overBalance ? 'text-red-700' : 'text-slate-700')}>{formatPrice(figure)}</span>
          {overBalance && (budget ? ' — больше бюджета' : ' — больше баланса')}
        </>
      ) : (
        <>
          Оценка: <span className="font-medium text-slate-700">{figure}</span>
        </>
      )}
    </span>
  )

  return (
    <div className="shrink-0 border-t border-slate-200 bg-slate-50/60 p-2 sm:p-4" data-testid="composer">
      {overBalance && !pending && (
        <div id={warningId} role="alert" data-testid="balance-warning" className="mb-2 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800 ring-1 ring-red-200 ring-inset">
          <p className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1.5">
            <span className="flex min-w-0 items-start gap-1.5 font-medium">
              <AlertCircleIcon size={15} className="mt-0.5 shrink-0 text-red-600" />
              <span data-testid="send-blocked-reason">
                {budget
                  ? budget === 'key'
                    ? 'Запрос не помещается в бюджет ключа'
                    : 'Запрос не помещается в ваш бюджет в команде'
                  : typeof figure === 'number'
                    ? `Не хватает баланса: запрос может стоить до ${formatPrice(figure)}`
                    : 'Не хватает баланса для этого запроса'}
              </span>
            </span>
            {/* one way out: a shorter answer that fits, else topping up (a budget is not raised by a top-up) */}
            {reduceTo !== null ? (
              <button
                type="button"
                onClick={() => onReduceTokens?.(reduceTo)}
                data-testid="reduce-tokens"
                className="shrink-0 rounded-md bg-white px-2.5 py-1 text-sm font-semibold text-red-800 ring-1 ring-red-300 ring-inset hover:bg-red-100"
              >
                Уменьшить ответ до {formatInteger(reduceTo)} {pluralRu(reduceTo, ['токена', 'токенов', 'токенов'])}
              </button>
            ) : (
              !budget && (
                <Link href="/app/billing" className="shrink-0 font-semibold text-red-800 underline underline-offset-2 hover:text-red-900">
                  Пополнить баланс
                </Link>
              )
            )}
          </p>
          {/* the server's own words (what is available, what to lower; which budget and when it resets), as its 402 will say */}
          {estimate.data?.message && <p className={cn('mt-0.5 text-xs text-red-700', !budget && 'hidden sm:block')}>{estimate.data.message}</p>}
        </div>
      )}
      {banner}
      {attachments.length > 0 && (
        <ul className="mb-2 flex flex-wrap gap-2" aria-label="Вложения">
          {attachments.map((a) => (
            <AttachmentChip key={a.key} item={a} disabled={pending} onRemove={() => onRemoveAttachment(a.key)} />
          ))}
        </ul>
      )}
      <div
        className={cn(
          'flex gap-1.5 rounded-xl border border-slate-300 bg-white p-1.5 shadow-xs transition-colors',
          // a phone gives the field the whole width: the buttons and the estimate go on a row under it
          phone ? 'flex-col' : 'items-end',
          'focus-within:border-indigo-500 focus-within:ring-3 focus-within:ring-indigo-500/15',
          pending && 'bg-slate-50',
        )}
      >
        {phone ? (
          <>
            {field}
            <div className="flex items-center gap-1.5">
              {attach}
              {mic}
              <span className="min-w-0 flex-1 px-1 text-xs text-slate-500">{estimateLine}</span>
              {sendOrStop}
            </div>
          </>
        ) : (
          <>
            {attach}
            {mic}
            {field}
            {sendOrStop}
          </>
        )}
      </div>
      {!phone && (
        <div className="mt-2 flex flex-wrap items-center justify-between gap-x-4 gap-y-1 px-1 text-xs text-slate-500">
          <span>
            <kbd className="font-sans font-medium text-slate-600">Enter</kbd> — отправить, <kbd className="font-sans font-medium text-slate-600">Shift+Enter</kbd> — новая строка
          </span>
          {estimateLine}
        </div>
      )}
    </div>
  )
}
