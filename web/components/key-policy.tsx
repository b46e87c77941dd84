// Key policies (issue 36): requests and tokens per minute, the models and the addresses a key may be
// used with, and its expiry; and «Ответ по средствам» (issue 37) of a key or a whole team. The keys page (a new key, «Ограничения…» of a key) and the team's
// «Политика ключей» card share these fields, the parsing of what was typed, and the one-line summary.
import { type ClipboardEvent, type KeyboardEvent, type ReactNode, useId } from 'react'
import { formatDate, formatInteger, pluralRu } from '../../src/content/format'
import type { TeamDetails } from '../../src/wire'
import { cn } from '../lib/cn'
import { Button } from './button'
import { CloseIcon } from './icons'

import { inputClasses } from './input'

// ─── values ──────────────────────────────────────────────────────────────────

/** The limits a key, or the defaults of a team's new keys, may carry (null: no limit of that kind). */
export interface PolicyLimits {
  rpmLimit?: number | null
  tpmLimit?: number | null
  allowedModels?: string[] | null
  allowedIps?: string[] | null
  /** A key's own expiry (ISO). */
  expiresAt?: string | null
  /** The team's default for new keys: days from a key's creation. */
  expiresInDays?: number | null
  /** «Ответ по средствам»: max_tokens is cut to what the money covers instead of a 402. */
  fitToBalance?: boolean
}

/**
 * A team's key policy (GET /api/teams/{id} → policy, PATCH …/policy): the models every team request
 * may call, the defaults of new keys, and whether every request of the team fits the balance.
 */
export type TeamPolicyValues = Pick<TeamDetails['policy'], 'allowedModels' | 'keyDefaults' | 'fitToBalance'>
/** The policy of a new team key as the owner or an admin set it. */
export type KeyDefaultsValues = NonNullable<TeamPolicyValues['keyDefaults']>

export const MODELS_HINT = 'Шаблон вроде openai/* или точный id модели; несколько — через запятую.'
export const IPS_HINT = 'Адрес или сеть: 203.0.113.7, 10.0.0.0/8, 2001:db8::/32; несколько — через запятую.'
export const FIT_LABEL = 'Ответ по средствам'
export const FIT_HINT = 'Если средств не хватает на max_tokens, ответ укорачивается (не меньше 16 токенов) вместо ошибки 402'

/** The items of a comma- or newline-separated list, trimmed, without blanks. */
export function splitList(text: string): string[] {
  return text
    .split(/[\n,;]+/)
    .map((s) => s.trim())
    .filter(Boolean)
}

/** The chips plus what is still typed in the field, without repeats. */
export function mergeList(values: readonly string[], text = ''): string[] {
  return [...new Set([...values, ...splitList(text)])]
}

/** '' → null (no limit); a whole number above zero (spaces allowed: '100 000') → it; anything else → undefined. */
export function parseWhole(raw: string): number | null | undefined {
  const text = raw.replace(/\s/g, '')
  if (text === '') return null
  if (!/^\d+$/.test(text)) return undefined
  const value = Number(text)
  return Number.isSafeInteger(value) && value > 0 ? value : undefined
}

/** A number for its field: no thousands separators, so it parses back. */
export const wholeToInput = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value))

/** Whether two lists hold the same items (order aside); null and [] both mean «no list». */
export function sameList(a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean {
  const x = [...(a ?? [])].sort()
  const y = [...(b ?? [])].sort()
  return x.length === y.length && x.every((v, i) => v === y[i])
}

// Moscow has no daylight saving: its day ends at 23:59:59.999 +03:00.
const moscowDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Moscow', year: 'numeric', month: '2-digit', day: '2-digit' })

/** The Moscow day of a moment as a date field holds it: '2027-01-31'. */
export const moscowDateInput = (value: string | number | Date) => moscowDay.format(new Date(value))

/** «Действует до 31.01.2027» means through that Moscow day: its last millisecond, as ISO. */
export const endOfMoscowDay = (date: string) => new Date(`${date}T23:59:59.999+03:00`).toISOString()

// ─── the summary ─────────────────────────────────────────────────────────────

/** 'openai/*, anthropic/* и ещё 2' */
function listPhrase(items: readonly string[], shown = 2): string {
  const head = items.slice(0, shown).join(', ')
  return items.length > shown ? `${head} и ещё ${items.length - shown}` : head
}

/** The parts of a policy; the lists may wrap inside, the rest keep together. */
function policyItems(policy: PolicyLimits): { text: string; list: boolean }[] {
  const items: { text: string; list: boolean }[] = []
  if (policy.rpmLimit) items.push({ text: `${formatInteger(policy.rpmLimit)} запр/мин`, list: false })
  if (policy.tpmLimit) items.push({ text: `${formatInteger(policy.tpmLimit)} ток/мин`, list: false })
  if (policy.allowedModels?.length) items.push({ text: `модели: ${listPhrase(policy.allowedModels)}`, list: true })
  if (policy.allowedIps?.length) items.push({ text: `IP: ${listPhrase(policy.allowedIps)}`, list: true })
  if (policy.expiresAt) items.push({ text: `до ${formatDate(policy.expiresAt)}`, list: false })
  if (policy.expiresInDays) items.push({ text: `срок ${formatInteger(policy.expiresInDays)} ${pluralRu(policy.expiresInDays, ['день', 'дня', 'дней'])}`, list: false })
  if (policy.fitToBalance) items.push({ text: 'по средствам', list: false })
  return items
}

/** The policy's parts as people read them: '60 запр/мин', '100 000 ток/мин', 'модели: openai/*', 'IP: 10.0.0.0/8', 'до 31.01.2027', 'по средствам'. */
export const policyParts = (policy: PolicyLimits): string[] => policyItems(policy).map((item) => item.text)

/** The whole policy, every item listed, and what «по средствам» means (a tooltip for the shortened summary). */
export function policyTitle(policy: PolicyLimits): string {
  const lines: string[] = []
  if (policy.allowedModels?.length) lines.push(`Модели: ${policy.allowedModels.join(', ')}`)
  if (policy.allowedIps?.length) lines.push(`IP-адреса и сети: ${policy.allowedIps.join(', ')}`)
  if (policy.fitToBalance) lines.push(`${FIT_LABEL}: ${FIT_HINT.charAt(0).toLowerCase()}${FIT_HINT.slice(1)}`)
  return lines.join('\n')
}

/** One line, the parts separated by «·», wrapping between them (and inside a long list). */
export function PolicySummary({ policy, className, testId = 'key-policy-summary' }: { policy: PolicyLimits; className?: string; testId?: string }) {
  const items = policyItems(policy)
  if (items.length === 0) return null
  return (
    <p data-testid={testId} title={policyTitle(policy) || undefined} className={cn('text-xs leading-5 text-slate-600', className)}>
      {items.map((item, i) => (
        <span key={item.text}>
          {i > 0 && <span className="text-slate-400"> · </span>}
          <span className={item.list ? 'break-words' : 'whitespace-nowrap'}>{item.text}</span>
        </span>
      ))}
    </p>
  )
}

// ─── fields ──────────────────────────────────────────────────────────────────

function Hint({ id, children }: { id: string; children: ReactNode }) {
  return (
    <p id={id} className="text-xs leading-5 text-slate-500">
      {children}
    </p>
  )
}

/** A whole number per minute (or of days): text with the numeric keypad, empty = no limit. */
export function WholeField({
  label,
  value,
  onChange,
  hint,
  placeholder = 'Без ограничения',
  invalid,
  disabled,
  className,
}: {
  label: string
  value: string
  onChange: (value: string) => void
  hint?: ReactNode
  placeholder?: string
  invalid?: boolean
  disabled?: boolean
  className?: string
}) {
  const id = useId()
  return (
    <div className={cn('min-w-0 space-y-1.5', className)}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <input
        id={id}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        value={value}
        placeholder={placeholder}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={invalid ? true : undefined}
        aria-describedby={hint ? `${id}-hint` : undefined}
        className={inputClasses}
      />
      {hint && <Hint id={`${id}-hint`}>{hint}</Hint>}
    </div>
  )
}

/**
 * A list of items as chips: type one and press Enter (or «Добавить»), or type or paste several
 * separated by commas or new lines. What is still typed counts too: the form merges it on save
 * (not on blur, which would move the buttons under a tap on «Сохранить»).
 */
export function ListField({
  label,
  values,
  text,
  onChange,
  placeholder,
  hint,
  addLabel,
  invalid,
  disabled,
  className,
}: {
  label: string
  values: string[]
  /** What is typed and not yet a chip. */
  text: string
  onChange: (values: string[], text: string) => void
  placeholder?: string
  hint?: ReactNode
  /** The add button's accessible name: «Добавить модель». */
  addLabel: string
  invalid?: boolean
  disabled?: boolean
  className?: string
}) {
  const id = useId()
  const commit = () => {
    if (splitList(text).length > 0) onChange(mergeList(values, text), '')
  }
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      // Enter adds what is typed; on an empty field it submits the form as usual.
      if (!text.trim()) return
      event.preventDefault()
      commit()
    } else if (event.key === 'Backspace' && text === '' && values.length > 0) {
      onChange(values.slice(0, -1), '')
    }
  }
  // A pasted column of items would lose its line breaks in a one-line field: split it here.
  const onPaste = (event: ClipboardEvent<HTMLInputElement>) => {
    const pasted = event.clipboardData.getData('text')
    if (!/[\n,;]/.test(pasted)) return
    event.preventDefault()
    onChange(mergeList(values, `${text}\n${pasted}`), '')
  }
  const onType = (next: string) => {
    // A comma closes an item: everything before the last one becomes chips.
    if (/[,;]/.test(next)) {
      const cut = Math.max(next.lastIndexOf(','), next.lastIndexOf(';'))
      onChange(mergeList(values, next.slice(0, cut)), next.slice(cut + 1).trimStart())
    } else onChange(values, next)
  }
  return (
    <div className={cn('min-w-0 space-y-1.5', className)}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      {values.length > 0 && (
        <ul className="flex flex-wrap gap-1.5" data-testid="policy-chips">
          {values.map((value) => (
            <li
              key={value}
              className="inline-flex max-w-full min-w-0 items-center gap-0.5 rounded-md bg-indigo-50 py-0.5 pr-0.5 pl-2 font-mono text-[13px] text-indigo-900 ring-1 ring-indigo-100 ring-inset"
            >
              <span className="min-w-0 break-all">{value}</span>
              <button
                type="button"
                onClick={() =>
                  onChange(
                    values.filter((v) => v !== value),
                    text,
                  )
                }
                disabled={disabled}
                aria-label={`Убрать ${value}`}
                title={`Убрать ${value}`}
                className="flex h-6 w-6 shrink-0 items-center justify-center rounded text-indigo-500 hover:bg-indigo-100 hover:text-indigo-800 disabled:cursor-not-allowed"
              >
                <CloseIcon size={12} />
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="flex gap-2">
        <input
          id={id}
          type="text"
          autoComplete="off"
          spellCheck={false}
          value={text}
          placeholder={placeholder}
          disabled={disabled}
          onChange={(e) => onType(e.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          aria-invalid={invalid ? true : undefined}
          aria-describedby={hint ? `${id}-hint` : undefined}
          className={cn(inputClasses, 'min-w-0 flex-1 font-mono text-sm')}
        />
        <Button variant="secondary" onClick={commit} disabled={disabled || !text.trim()} aria-label={addLabel} className="h-10 shrink-0">
          Добавить
        </Button>
      </div>
      {hint && <Hint id={`${id}-hint`}>{hint}</Hint>}
    </div>
  )
}

/** «Действует до»: a Moscow date, empty = without end; «Бессрочно» clears it. */
export function ExpiryField({
  label = 'Действует до',
  value,
  onChange,
  invalid,
  disabled,
  hint,
  className,
}: {
  label?: string
  value: string
  onChange: (value: string) => void
  invalid?: boolean
  disabled?: boolean
  hint?: ReactNode
  className?: string
}) {
  const id = useId()
  return (
    <div className={cn('min-w-0 space-y-1.5', className)}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <div className="flex gap-2">
        <input
          id={id}
          type="date"
          value={value}
          min={moscowDateInput(Date.now())}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={invalid ? true : undefined}
          aria-describedby={`${id}-hint`}
          className={cn(inputClasses, 'min-w-0 flex-1 sm:max-w-56')}
        />
        {value && (
          <Button variant="secondary" onClick={() => onChange('')} disabled={disabled} className="h-10 shrink-0">
            Бессрочно
          </Button>
        )}
      </div>
      <Hint id={`${id}-hint`}>{hint ?? (value ? `Ключ перестанет работать после 23:59 МСК этого дня.` : 'Пусто — ключ действует бессрочно.')}</Hint>
    </div>
  )
}

/**
 * «Ответ по средствам»: a switch with its label and one-line hint. `note` says more under the hint
 * (that the team has it on for everyone, say).
 */
export function FitToBalanceField({
  checked,
  onChange,
  label = FIT_LABEL,
  hint = FIT_HINT,
  note,
  disabled,
  className,
}: {
  checked: boolean
  onChange: (checked: boolean) => void
  label?: string
  hint?: ReactNode
  note?: ReactNode
  disabled?: boolean
  className?: string
}) {
  const id = useId()
  return (
    <div data-testid="fit-to-balance" className={cn('flex min-w-0 items-start gap-3', className)}>
      <div className="min-w-0 flex-1 space-y-0.5">
        <label htmlFor={id} className="block cursor-pointer text-sm font-medium text-slate-700">
          {label}
        </label>
        <Hint id={`${id}-hint`}>{hint}</Hint>
        {note && <p className="text-xs leading-5 text-indigo-700">{note}</p>}
      </div>
      <span className="relative mt-0.5 inline-flex h-6 w-11 shrink-0">
        {/* The real checkbox covers the drawn switch (transparent): it is what is clicked, focused and read. */}
        <input
          id={id}
          type="checkbox"
          role="switch"
          aria-checked={checked}
          aria-describedby={`${id}-hint`}
          checked={checked}
          disabled={disabled}
          onChange={(e) => onChange(e.target.checked)}
          className="peer absolute inset-0 z-10 m-0 h-full w-full cursor-pointer appearance-none rounded-full opacity-0 disabled:cursor-not-allowed"
        />
        <span className="h-6 w-11 rounded-full bg-slate-300 transition-colors peer-checked:bg-indigo-600 peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-indigo-500 peer-disabled:opacity-60" />
        <span className="pointer-events-none absolute top-0.5 left-0.5 h-5 w-5 rounded-full bg-white shadow transition-transform peer-checked:translate-x-5" />
      </span>
    </div>
  )
}

// ─── the form's state ────────────────────────────────────────────────────────

/** What the fields hold: typed text for the numbers, chips plus typed text for the lists. */
export interface PolicyDraft {
  rpm: string
  tpm: string
  models: string[]
  modelsText: string
  ips: string[]
  ipsText: string
}

export type PolicyField = 'rpm' | 'tpm' | 'models' | 'ips' | 'expiry'

export const EMPTY_DRAFT: PolicyDraft = { rpm: '', tpm: '', models: [], modelsText: '', ips: [], ipsText: '' }

export const draftOf = (policy: PolicyLimits): PolicyDraft => ({
  rpm: wholeToInput(policy.rpmLimit),
  tpm: wholeToInput(policy.tpmLimit),
  models: policy.allowedModels ?? [],
  modelsText: '',
  ips: policy.allowedIps ?? [],
  ipsText: '',
})

export interface DraftLimits {
  rpmLimit: number | null
  tpmLimit: number | null
  allowedModels: string[] | null
  allowedIps: string[] | null
}

export type DraftReading = { ok: true; value: DraftLimits } | { ok: false; field: PolicyField; message: string }

/** The draft as the API takes it (empty lists → null), or which field is wrong and why. */
export function readDraft(draft: PolicyDraft): DraftReading {
  const rpmLimit = parseWhole(draft.rpm)
  if (rpmLimit === undefined) return { ok: false, field: 'rpm', message: 'Запросов в минуту: введите целое число больше нуля или оставьте поле пустым' }
  const tpmLimit = parseWhole(draft.tpm)
  if (tpmLimit === undefined) return { ok: false, field: 'tpm', message: 'Токенов в минуту: введите целое число больше нуля или оставьте поле пустым' }
  const models = mergeList(draft.models, draft.modelsText)
  const ips = mergeList(draft.ips, draft.ipsText)
  return { ok: true, value: { rpmLimit, tpmLimit, allowedModels: models.length ? models : null, allowedIps: ips.length ? ips : null } }
}

/** Which field a server message is about, to mark it (the message itself is shown as is). */
export function fieldOfMessage(message: string): PolicyField | null {
  if (/IP|сет[ьи]/i.test(message)) return 'ips'
  if (/модел|шаблон/i.test(message)) return 'models'
  if (/токен/i.test(message)) return 'tpm'
  if (/запрос/i.test(message)) return 'rpm'
  if (/срок|дат|истек/i.test(message)) return 'expiry'
  return null
}

/**
 * The four fields of a policy in a grid: the two limits side by side where there is room, the
 * lists across. `only` leaves out what does not apply (a management key has no /v1 limits).
 */
export function PolicyFields({
  draft,
  onChange,
  invalid,
  disabled,
  only,
  modelsHint = MODELS_HINT,
}: {
  draft: PolicyDraft
  onChange: (next: PolicyDraft) => void
  invalid?: PolicyField | null
  disabled?: boolean
  only?: readonly PolicyField[]
  modelsHint?: ReactNode
}) {
  const shows = (field: PolicyField) => !only || only.includes(field)
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      {shows('rpm') && <WholeField label="Запросов в минуту" value={draft.rpm} onChange={(rpm) => onChange({ ...draft, rpm })} invalid={invalid === 'rpm'} disabled={disabled} />}
      {shows('tpm') && <WholeField label="Токенов в минуту" value={draft.tpm} onChange={(tpm) => onChange({ ...draft, tpm })} invalid={invalid === 'tpm'} disabled={disabled} />}
      {shows('models') && (
        <ListField
          label="Разрешённые модели"
          values={draft.models}
          text={draft.modelsText}
          onChange={(models, modelsText) => onChange({ ...draft, models, modelsText })}
          placeholder="openai/*"
          hint={<>{modelsHint} Пусто — все модели.</>}
          addLabel="Добавить модель"
          invalid={invalid === 'models'}
          disabled={disabled}
          className="sm:col-span-2"
        />
      )}
      {shows('ips') && (
        <ListField
          label="Разрешённые IP-адреса и сети"
          values={draft.ips}
          text={draft.ipsText}
          onChange={(ips, ipsText) => onChange({ ...draft, ips, ipsText })}
          placeholder="10.0.0.0/8"
          hint={<>{IPS_HINT} Пусто — с любого адреса.</>}
          addLabel="Добавить адрес"
          invalid={invalid === 'ips'}
          disabled={disabled}
          className="sm:col-span-2"
        />
      )}
    </div>
  )
}
