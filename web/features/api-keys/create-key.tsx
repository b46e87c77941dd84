import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { FormAlert } from '../../components/form-alert'
import { AlertCircleIcon, CheckCircleIcon, ChevronDownIcon, InfoIcon } from '../../components/icons'
import { inputClasses } from '../../components/input'
import {
  EMPTY_DRAFT,
  ExpiryField,
  endOfMoscowDay,
  FitToBalanceField,
  fieldOfMessage,
  moscowDateInput,
  type PolicyDraft,
  type PolicyField,
  PolicyFields,
  policyParts,
  readDraft,
} from '../../components/key-policy'
import { RESIDENCY_HINTS, RESIDENCY_LABELS, type ResidencyRule, ResidencySelect } from '../../components/residency'
import { useAccount } from '../../lib/account'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { CopyAction } from './copy-action'
import { type CreatedApiKey, KEYS_LIMIT_MESSAGE, type KeyKind, keysApi, MAX_KEYS, NAME_MAX_LENGTH, NAME_REQUIRED_MESSAGE, type NewKeyInput, useTeamKeyPolicy } from './keys-api'

const KIND_LABELS: Record<KeyKind, string> = { inference: 'Обычный', management: 'Управляющий' }
const KIND_HINTS: Record<KeyKind, string> = {
  inference: 'для запросов к API',
  management: 'управляет ключами, читает баланс и активность; не работает с /v1',
}
const KINDS: KeyKind[] = ['inference', 'management']
/** A management key never calls /v1: only where it may be used from and until when apply. */
const MANAGEMENT_FIELDS: readonly PolicyField[] = ['ips']

function KindRadios({ value, onChange, disabled }: { value: KeyKind; onChange: (kind: KeyKind) => void; disabled?: boolean }) {
  const name = useId()
  return (
    <fieldset className="min-w-0" disabled={disabled}>
      <legend className="text-sm font-medium text-slate-700">Тип ключа</legend>
      <div className="mt-1.5 grid gap-2 sm:grid-cols-2">
        {KINDS.map((kind) => (
          <label
            key={kind}
            className={cn(
              'flex cursor-pointer items-start gap-2.5 rounded-lg border p-3 transition-colors has-[:disabled]:cursor-not-allowed has-[:disabled]:opacity-70',
              value === kind ? 'border-indigo-500 bg-indigo-50 ring-1 ring-indigo-500' : 'border-slate-200 bg-white hover:border-slate-300',
            )}
          >
            <input
              type="radio"
              name={name}
              value={kind}
              checked={value === kind}
              onChange={() => onChange(kind)}
              aria-labelledby={`${name}-${kind}`}
              aria-describedby={`${name}-${kind}-hint`}
              className="mt-0.5 h-4 w-4 shrink-0 accent-indigo-600"
            />
            <span className="min-w-0">
              <span id={`${name}-${kind}`} className="block text-sm font-medium text-slate-900">
                {KIND_LABELS[kind]}
              </span>
              <span id={`${name}-${kind}-hint`} className="mt-0.5 block text-xs leading-5 text-slate-600 first-letter:uppercase">
                {KIND_HINTS[kind]}
              </span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  )
}

/** What the team gives a new key when the form leaves a field empty (the server applies it). */
function TeamDefaultsHint({ teamId }: { teamId: string }) {
  const policy = useTeamKeyPolicy(teamId)
  const defaults = policy?.keyDefaults ? policyParts(policy.keyDefaults) : []
  const models = policy?.allowedModels ?? []
  if (defaults.length === 0 && models.length === 0) return null
  return (
    <div data-testid="team-key-defaults-hint" className="flex items-start gap-2 rounded-lg border border-indigo-100 bg-indigo-50/60 px-3 py-2.5 text-sm text-slate-700">
      <InfoIcon size={16} className="mt-0.5 shrink-0 text-indigo-600" />
      <div className="min-w-0 space-y-1">
        {defaults.length > 0 && (
          <p className="break-words">
            Новые ключи команды получают ограничения по умолчанию: <span className="font-medium text-slate-900">{defaults.join(' · ')}</span>. Если не заполнить их в
            «Ограничениях», ключ получит эти значения.
          </p>
        )}
        {models.length > 0 && (
          <p className="break-words">
            Команда разрешает только модели <span className="font-mono text-[13px] text-slate-900">{models.join(', ')}</span> — ключ может сузить этот список, но не расширить.
          </p>
        )}
      </div>
    </div>
  )
}

export function CreateKeyForm({
  keyCount,
  teamRuOnly = false,
  onCreated,
}: {
  /** Keys the user has now; undefined while the list is loading. */
  keyCount: number | undefined
  /** The team the key is made in keeps every request in Russia, whatever the key says. */
  teamRuOnly?: boolean
  onCreated: (created: CreatedApiKey) => void | Promise<void>
}) {
  const inputId = useId()
  const hintId = useId()
  const limitsId = useId()
  const { teamId } = useAccount()
  const [name, setName] = useState('')
  const [residency, setResidency] = useState<ResidencyRule>('any')
  const [kind, setKind] = useState<KeyKind>('inference')
  const [limitsOpen, setLimitsOpen] = useState(false)
  const [draft, setDraft] = useState<PolicyDraft>(EMPTY_DRAFT)
  const [expires, setExpires] = useState('')
  const [fit, setFit] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [invalid, setInvalid] = useState<PolicyField | 'name' | null>(null)
  const [pending, setPending] = useState(false)
  const atLimit = keyCount !== undefined && keyCount >= MAX_KEYS
  const management = kind === 'management'
  const teamFits = useTeamKeyPolicy(teamId)?.fitToBalance ?? false

  const fail = (message: string, field: PolicyField | 'name' | null) => {
    setError(message)
    setInvalid(field)
    if (field && field !== 'name') setLimitsOpen(true)
  }
  const edited = () => {
    if (error) {
      setError(null)
      setInvalid(null)
    }
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (pending || atLimit) return
    const trimmed = name.trim()
    if (!trimmed) return fail(NAME_REQUIRED_MESSAGE, 'name')
    const reading = readDraft(draft)
    if (!reading.ok) return fail(reading.message, reading.field)
    if (expires && expires < moscowDateInput(Date.now())) return fail('Дата окончания действия уже прошла', 'expiry')
    const limits = reading.value
    // Only what was filled in: an omitted field takes the team's default on the server.
    const input: NewKeyInput = { name: trimmed, kind }
    if (!management) {
      input.residency = residency
      if (limits.rpmLimit !== null) input.rpmLimit = limits.rpmLimit
      if (limits.tpmLimit !== null) input.tpmLimit = limits.tpmLimit
      if (limits.allowedModels) input.allowedModels = limits.allowedModels
      if (fit) input.fitToBalance = true
    }
    if (limits.allowedIps) input.allowedIps = limits.allowedIps
    if (expires) input.expiresAt = endOfMoscowDay(expires)
    setError(null)
    setInvalid(null)
    setPending(true)
    try {
      const created = await keysApi.create(input)
      setName('')
      setResidency('any')
      setKind('inference')
      setDraft(EMPTY_DRAFT)
      setExpires('')
      setFit(false)
      setLimitsOpen(false)
      await onCreated(created)
    } catch (err) {
      const message = errorMessage(err, 'Ошибка создания ключа')
      fail(message, fieldOfMessage(message))
    } finally {
      setPending(false)
    }
  }

  const reading = readDraft(draft)
  const chosen = reading.ok
    ? policyParts({
        ...reading.value,
        ...(management ? { rpmLimit: null, tpmLimit: null, allowedModels: null } : {}),
        expiresAt: expires ? endOfMoscowDay(expires) : null,
        fitToBalance: !management && fit,
      })
    : []

  return (
    <Card className="p-4 sm:p-6" data-testid="create-key-form">
      <h2 className="text-base font-semibold text-slate-900">Новый ключ</h2>
      <p className="mt-1 text-sm text-slate-500">Дайте ключу понятное название — по нему вы отличите приложения друг от друга.</p>
      <form noValidate onSubmit={onSubmit} className="mt-4 space-y-4">
        {/* phones: name, choice, what it means; wider: the two in a row, the meaning under them */}
        <div className="flex flex-col gap-3 md:flex-row md:flex-wrap md:items-end">
          <div className="min-w-0 space-y-1.5 md:flex-1">
            <label htmlFor={inputId} className="block text-sm font-medium text-slate-700">
              Название ключа
            </label>
            <input
              id={inputId}
              name="name"
              value={name}
              onChange={(e) => {
                setName(e.target.value)
                edited()
              }}
              placeholder="Например, Мой проект"
              maxLength={NAME_MAX_LENGTH}
              autoComplete="off"
              disabled={atLimit}
              aria-invalid={invalid === 'name' ? true : undefined}
              className={inputClasses}
            />
          </div>
          {!management && (
            <>
              <ResidencySelect label="Хранение данных" value={residency} onChange={setResidency} disabled={atLimit} describedBy={hintId} className="md:w-60" />
              <p id={hintId} className="-mt-1 text-xs text-slate-500 md:basis-full" data-testid="key-residency-hint">
                {RESIDENCY_LABELS[residency]}: {RESIDENCY_HINTS[residency]}.{teamRuOnly && ' Команда разрешает только провайдеров в России — это действует для всех её ключей.'}
              </p>
            </>
          )}
        </div>
        <KindRadios
          value={kind}
          onChange={(next) => {
            setKind(next)
            edited()
          }}
          disabled={atLimit}
        />
        {teamId && <TeamDefaultsHint teamId={teamId} />}
        <div className="rounded-lg border border-slate-200">
          <button
            type="button"
            aria-expanded={limitsOpen}
            aria-controls={limitsId}
            onClick={() => setLimitsOpen((open) => !open)}
            disabled={atLimit}
            className="flex w-full items-center gap-3 rounded-lg px-3 py-2.5 text-left transition-colors hover:bg-slate-50 disabled:cursor-not-allowed disabled:opacity-60"
          >
            <span className="min-w-0 flex-1">
              <span className="block text-sm font-medium text-slate-800">Ограничения</span>
              <span className="block text-xs break-words text-slate-500" data-testid="new-key-limits-summary">
                {chosen.length > 0
                  ? chosen.join(' · ')
                  : management
                    ? 'IP-адреса и срок действия — по желанию'
                    : 'Запросы и токены в минуту, модели, IP-адреса, срок действия, ответ по средствам — по желанию'}
              </span>
            </span>
            <ChevronDownIcon size={16} className={cn('shrink-0 text-slate-500 transition-transform', limitsOpen && 'rotate-180')} />
          </button>
          <div id={limitsId} hidden={!limitsOpen} className="space-y-4 border-t border-slate-200 px-3 pt-3 pb-4">
            {management && <p className="text-xs text-slate-500">Управляющий ключ не работает с /v1, поэтому лимиты запросов и список моделей к нему не относятся.</p>}
            <PolicyFields
              draft={draft}
              onChange={(next) => {
                setDraft(next)
                edited()
              }}
              invalid={invalid === 'name' ? null : invalid}
              only={management ? MANAGEMENT_FIELDS : undefined}
            />
            <ExpiryField
              value={expires}
              onChange={(next) => {
                setExpires(next)
                edited()
              }}
              invalid={invalid === 'expiry'}
            />
            {!management && (
              <FitToBalanceField
                checked={fit}
                onChange={setFit}
                note={teamFits ? 'Команда уже включила ответ по средствам для всех своих запросов.' : undefined}
                className="border-t border-slate-100 pt-4"
              />
            )}
          </div>
        </div>
        {atLimit && <p className="text-sm text-slate-500">{KEYS_LIMIT_MESSAGE}. Удалите ненужный ключ, чтобы создать новый.</p>}
        <FormAlert message={error} />
        <div className="flex justify-end">
          <Button type="submit" loading={pending} disabled={atLimit} className="w-full sm:w-auto">
            Создать ключ
          </Button>
        </div>
      </form>
    </Card>
  )
}

/** The one time the full key is visible. Dismissing it drops the key from memory for good. */
export function NewKeyPanel({ created, onDismiss }: { created: CreatedApiKey; onDismiss: () => void }) {
  const headingId = useId()
  const ref = useRef<HTMLElement>(null)
  // biome-ignore lint/correctness/useExhaustiveDependencies: created.id is the trigger: each new key brings the panel into view and focus
  useEffect(() => {
    ref.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' })
    ref.current?.focus({ preventScroll: true })
  }, [created.id])

  return (
    <section
      ref={ref}
      tabIndex={-1}
      aria-labelledby={headingId}
      className="scroll-mt-20 rounded-xl border border-emerald-200 bg-white p-4 shadow-sm ring-4 ring-emerald-50 outline-none sm:p-6"
    >
      <div className="flex items-start gap-3">
        <span className="flex h-9 w-9 shrink-0 items-center justify-center rounded-full bg-emerald-50 text-emerald-600">
          <CheckCircleIcon size={18} />
        </span>
        <div className="min-w-0">
          <h2 id={headingId} className="text-base font-semibold text-slate-900">
            Ваш новый API ключ
          </h2>
          <p className="mt-0.5 text-sm break-words text-slate-500">
            {created.kind === 'management'
              ? `Управляющий ключ «${created.name}» создан: он управляет ключами и читает баланс и активность, к /v1 не подходит.`
              : `Ключ «${created.name}» создан и уже работает.`}
          </p>
        </div>
      </div>
      <p className="mt-4 flex items-start gap-2 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2.5 text-sm text-amber-800">
        <AlertCircleIcon size={16} className="mt-0.5 shrink-0" />
        <span>Сохраните ключ сейчас — больше он показан не будет.</span>
      </p>
      <div className="mt-4 flex flex-col gap-2 sm:flex-row sm:items-stretch">
        <code
          data-testid="new-api-key"
          className="flex min-h-10 flex-1 items-center rounded-lg border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-sm break-all text-slate-900 select-all"
        >
          {created.key}
        </code>
        <CopyAction text={created.key} className="sm:min-w-[9.5rem]" />
      </div>
      <div className="mt-5 flex justify-end">
        <Button onClick={onDismiss} className="w-full sm:w-auto">
          Понятно, я сохранил ключ
        </Button>
      </div>
    </section>
  )
}
