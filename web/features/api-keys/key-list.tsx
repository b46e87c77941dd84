import { type KeyboardEvent, type ReactNode, useState } from 'react'
import type { KeyedMutator } from 'swr'
import { formatDate, formatDateTime } from '../../../src/content/format'
import type { BudgetInput } from '../../../src/wire'
import { BudgetDialog, BudgetMeter, formatLimit, PERIOD_PHRASES } from '../../components/budget'
import { Button } from '../../components/button'
import { ConfirmDialog } from '../../components/dialog'
import { GaugeIcon, LinkIcon, LockIcon, PencilIcon, PowerIcon, ShieldIcon, SlidersIcon, TrashIcon } from '../../components/icons'
import { inputClasses } from '../../components/input'
import { PolicySummary, policyParts } from '../../components/key-policy'
import { type ResidencyRule, RuOnlyBadge } from '../../components/residency'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { useMediaQuery } from '../../lib/use-media-query'
import { toast } from '../../stores/toasts'
import { type ApiKey, type ApiKeyPatch, keysApi, NAME_MAX_LENGTH, NAME_REQUIRED_MESSAGE } from './keys-api'
import { KeyPolicyDialog } from './policy-dialog'
import { KeyResidencyDialog } from './residency-dialog'

/** Wide enough (sidebar included) for the seven-column table; narrower screens get cards. */
const TABLE_QUERY = '(min-width: 1280px)'

export const deleteQuestion = (name: string) => `Удалить ключ «${name}»? Приложения, использующие его, перестанут работать.`

// ─── small pieces ────────────────────────────────────────────────────────────

function StatusBadge({ active, expired }: { active: boolean; expired: boolean }) {
  if (expired)
    return (
      <span
        data-testid="key-expired-badge"
        title="Срок действия ключа закончился: запросы по нему получают ошибку 401 key_expired"
        className="inline-flex h-6 items-center gap-1.5 rounded-full bg-amber-50 px-2.5 text-xs font-medium whitespace-nowrap text-amber-800 ring-1 ring-amber-200 ring-inset"
      >
        <span className="h-1.5 w-1.5 rounded-full bg-amber-500" aria-hidden="true" />
        Истёк
      </span>
    )
  return (
    <span
      className={cn(
        'inline-flex h-6 items-center gap-1.5 rounded-full px-2.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset',
        active ? 'bg-emerald-50 text-emerald-700 ring-emerald-100' : 'bg-slate-100 text-slate-600 ring-slate-200',
      )}
    >
      <span className={cn('h-1.5 w-1.5 rounded-full', active ? 'bg-emerald-500' : 'bg-slate-400')} aria-hidden="true" />
      {active ? 'Активен' : 'Отключён'}
    </span>
  )
}

function Spend({ apiKey, className }: { apiKey: ApiKey; className?: string }) {
  // a management key makes no requests that cost money: nothing to spend, no budget to set
  if (apiKey.kind === 'management') return <span className={cn('text-slate-500', className)}>не расходует баланс</span>
  return <BudgetMeter budget={apiKey.budget} label="Израсходовано от бюджета ключа" className={className} />
}

/** Whose key it is, in a team (owners and admins see every member's keys). */
function Owner({ apiKey, className }: { apiKey: ApiKey; className?: string }) {
  if (!apiKey.owner) return null
  return (
    <span title={`владелец: ${apiKey.owner.email}`} className={cn('block truncate text-xs text-slate-500', className)}>
      владелец: {apiKey.owner.email}
    </span>
  )
}

/** «Только РФ» under a key bound to upstreams in Russia: by its own setting or by its team's. */
function Residency({ apiKey, teamRuOnly }: { apiKey: ApiKey; teamRuOnly: boolean }) {
  if (apiKey.kind === 'management') return null
  if (apiKey.residency === 'ru') return <RuOnlyBadge title="Хранение данных: только в РФ — запросы по ключу идут только к провайдерам в России" />
  if (teamRuOnly) return <RuOnlyBadge title="Команда разрешает только провайдеров в России — это действует для всех её ключей" />
  return null
}

function KindBadge({ apiKey }: { apiKey: ApiKey }) {
  if (apiKey.kind !== 'management') return null
  return (
    <span
      data-testid="key-kind-badge"
      title="Управляющий ключ: управляет ключами, читает баланс и активность; не работает с /v1"
      className="inline-flex h-6 shrink-0 items-center gap-1 rounded-full bg-violet-50 px-2.5 text-xs font-medium whitespace-nowrap text-violet-800 ring-1 ring-violet-100 ring-inset"
    >
      <SlidersIcon size={12} />
      Управляющий
    </span>
  )
}

/** The marks under a key's name: management, Russia only. */
function KeyMarks({ apiKey, teamRuOnly }: { apiKey: ApiKey; teamRuOnly: boolean }) {
  if (apiKey.kind !== 'management' && apiKey.residency !== 'ru' && !teamRuOnly) return null
  return (
    <div className="mt-1.5 flex flex-wrap gap-1.5">
      <KindBadge apiKey={apiKey} />
      <Residency apiKey={apiKey} teamRuOnly={teamRuOnly} />
    </div>
  )
}

const hasPolicyLine = (key: ApiKey) => policyParts(key).length > 0 || key.appOrigin !== null

/** What the key may do, in one line, and the app it was made for through «Войти через AI Gateway». */
function PolicyLine({ apiKey, className }: { apiKey: ApiKey; className?: string }) {
  if (!hasPolicyLine(apiKey)) return null
  return (
    <div className={cn('flex min-w-0 flex-wrap gap-x-6 gap-y-0.5', className)}>
      {policyParts(apiKey).length > 0 && (
        <div className="flex min-w-0 items-start gap-1.5">
          <SlidersIcon size={12} className="mt-1 shrink-0 text-slate-400" />
          <PolicySummary policy={apiKey} className="min-w-0" />
        </div>
      )}
      {apiKey.appOrigin && (
        <p data-testid="key-app-origin" className="flex min-w-0 items-start gap-1.5 text-xs leading-5 text-slate-600">
          <LinkIcon size={12} className="mt-1 shrink-0 text-slate-400" />
          <span className="min-w-0 break-all">Приложение: {apiKey.appOrigin}</span>
        </p>
      )}
    </div>
  )
}

/** '29.11.2026, 05:48 МСК', wrapping after the date where the column is narrow («МСК» stays with the time). */
function LastUsed({ value }: { value: string | null }) {
  return value ? <time dateTime={value}>{formatDateTime(value)}</time> : <span className="text-slate-500">ещё не использовался</span>
}

/**
 * Why the caller cannot re-enable the key or change its budget: an admin or the owner of the team
 * decided it (the server says so in `locked`, and refuses the change anyway). The disabled control
 * points here with aria-describedby.
 */
function LockNote({ id, text, className }: { id: string; text: string; className?: string }) {
  return (
    <p id={id} data-testid="key-lock" className={cn('mt-1.5 flex max-w-60 items-start gap-1 text-xs text-slate-500', className)}>
      <LockIcon size={12} className="mt-0.5 shrink-0" />
      <span>{text}</span>
    </p>
  )
}

/** The place of an action a key does not have, so the icons of the rows stay in columns. */
const ActionGap = () => <span className="h-8 w-8" aria-hidden="true" />

const lockIds = (key: ApiKey) => ({ active: `key-lock-active-${key.id}`, budget: `key-lock-budget-${key.id}` })

function IconAction({
  label,
  onClick,
  disabled,
  danger,
  describedBy,
  children,
}: {
  label: string
  onClick: () => void
  disabled?: boolean
  danger?: boolean
  describedBy?: string
  children: ReactNode
}) {
  return (
    <button
      type="button"
      aria-label={label}
      aria-describedby={describedBy}
      title={label}
      onClick={onClick}
      disabled={disabled}
      className={cn(
        'flex h-8 w-8 items-center justify-center rounded-lg text-slate-500 transition-colors disabled:cursor-not-allowed disabled:opacity-50',
        danger ? 'hover:bg-red-50 hover:text-red-600' : 'hover:bg-slate-100 hover:text-slate-900',
      )}
    >
      {children}
    </button>
  )
}

// ─── rename ──────────────────────────────────────────────────────────────────

interface Editing {
  id: string
  value: string
  error: string | null
  saving: boolean
}

function NameField({ editing, onChange, onSave, onCancel }: { editing: Editing; onChange: (value: string) => void; onSave: () => void; onCancel: () => void }) {
  const errorId = `rename-error-${editing.id}`
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault()
      onSave()
    } else if (event.key === 'Escape') {
      event.preventDefault()
      onCancel()
    }
  }
  return (
    <div className="min-w-0">
      <input
        value={editing.value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
        aria-label="Новое название ключа"
        aria-invalid={editing.error ? true : undefined}
        aria-describedby={editing.error ? errorId : undefined}
        maxLength={NAME_MAX_LENGTH}
        disabled={editing.saving}
        // biome-ignore lint/a11y/noAutofocus: the field appears because the user chose to rename the key; focus moves into it, not on page load
        autoFocus
        className={cn(inputClasses, 'h-9 text-sm')}
      />
      {editing.error && (
        <p id={errorId} role="alert" className="mt-1 text-xs font-medium text-red-600">
          {editing.error}
        </p>
      )}
    </div>
  )
}

function RenameButtons({ editing, onSave, onCancel, className }: { editing: Editing; onSave: () => void; onCancel: () => void; className?: string }) {
  return (
    <div className={cn('flex gap-2', className)}>
      <Button size="sm" onClick={onSave} loading={editing.saving}>
        Сохранить
      </Button>
      <Button size="sm" variant="secondary" onClick={onCancel} disabled={editing.saving}>
        Отмена
      </Button>
    </div>
  )
}

// ─── the list ────────────────────────────────────────────────────────────────

export function KeyList({
  keys,
  mutate,
  onDeleted,
  teamRuOnly = false,
}: {
  keys: ApiKey[]
  mutate: KeyedMutator<ApiKey[]>
  onDeleted: (id: string) => void
  /** The team the keys belong to keeps every request in Russia. */
  teamRuOnly?: boolean
}) {
  const wide = useMediaQuery(TABLE_QUERY)
  const [editing, setEditing] = useState<Editing | null>(null)
  const [toggling, setToggling] = useState<string | null>(null)
  const [limitKey, setLimitKey] = useState<ApiKey | null>(null)
  const [residencyKey, setResidencyKey] = useState<ApiKey | null>(null)
  const [policyKey, setPolicyKey] = useState<ApiKey | null>(null)
  const [deleting, setDeleting] = useState<{ key: ApiKey; pending: boolean } | null>(null)

  /** PATCH, put the answer into the cached list, revalidate. Resolves false on failure. */
  async function update(key: ApiKey, patch: ApiKeyPatch, success: string): Promise<boolean> {
    try {
      const updated = await keysApi.update(key.id, patch)
      await mutate((list) => list?.map((k) => (k.id === key.id ? { ...k, ...updated } : k)), { revalidate: true })
      toast.success(success)
      return true
    } catch (err) {
      toast.error(errorMessage(err, 'Ошибка обновления ключа'))
      return false
    }
  }

  async function toggle(key: ApiKey) {
    setToggling(key.id)
    await update(key, { isActive: !key.isActive }, key.isActive ? 'Ключ отключён' : 'Ключ включён')
    setToggling(null)
  }

  const startRename = (key: ApiKey) => setEditing({ id: key.id, value: key.name, error: null, saving: false })
  const cancelRename = () => setEditing(null)
  async function saveRename() {
    if (!editing || editing.saving) return
    const key = keys.find((k) => k.id === editing.id)
    const name = editing.value.trim()
    if (!name) {
      setEditing({ ...editing, error: NAME_REQUIRED_MESSAGE })
      return
    }
    if (!key || name === key.name) {
      setEditing(null)
      return
    }
    setEditing({ ...editing, error: null, saving: true })
    const ok = await update(key, { name }, 'Название сохранено')
    setEditing((current) => (current?.id !== key.id ? current : ok ? null : { ...current, saving: false }))
  }

  async function saveBudget(key: ApiKey, budget: BudgetInput): Promise<boolean> {
    const ok = await update(key, { budget }, budget.limitRub === null ? 'Лимит снят' : 'Бюджет сохранён')
    if (ok) setLimitKey(null)
    return ok
  }

  async function saveResidency(key: ApiKey, residency: ResidencyRule): Promise<boolean> {
    const ok = await update(key, { residency }, residency === 'ru' ? 'Ключ работает только с провайдерами в РФ' : 'Ключ работает с любыми провайдерами')
    if (ok) setResidencyKey(null)
    return ok
  }

  /** Throws on failure: the dialog shows the server's message and stays open. */
  async function savePolicy(key: ApiKey, patch: ApiKeyPatch): Promise<void> {
    const updated = await keysApi.update(key.id, patch)
    setPolicyKey(null)
    toast.success('Ограничения сохранены')
    await mutate((list) => list?.map((k) => (k.id === key.id ? { ...k, ...updated } : k)), { revalidate: true })
  }

  async function confirmDelete() {
    if (!deleting || deleting.pending) return
    const key = deleting.key
    setDeleting({ key, pending: true })
    try {
      await keysApi.remove(key.id)
      setDeleting(null)
      if (editing?.id === key.id) setEditing(null)
      onDeleted(key.id)
      toast.success('Ключ удалён')
      await mutate((list) => list?.filter((k) => k.id !== key.id), { revalidate: true })
    } catch (err) {
      toast.error(errorMessage(err, 'Ошибка удаления ключа'))
      setDeleting({ key, pending: false })
    }
  }

  const nameChange = (value: string) => setEditing((e) => (e ? { ...e, value, error: null } : e))
  const busy = (key: ApiKey) => toggling === key.id || (editing?.id === key.id && editing.saving)

  // Only re-enabling can be locked (a disabled key stays disabled until an admin or the owner says otherwise).
  const toggleButton = (key: ApiKey, withIcon: boolean, className?: string) => (
    <Button
      size="sm"
      variant="secondary"
      onClick={() => void toggle(key)}
      loading={toggling === key.id}
      disabled={busy(key) || key.locked.isActive !== null}
      aria-describedby={key.locked.isActive ? lockIds(key).active : undefined}
      className={className}
    >
      {withIcon && toggling !== key.id && <PowerIcon size={15} className={key.isActive ? 'text-slate-500' : 'text-emerald-600'} />}
      {key.isActive ? 'Отключить' : 'Включить'}
    </Button>
  )

  const dialogs = (
    <>
      <BudgetDialog
        open={limitKey !== null}
        title="Бюджет ключа"
        budget={limitKey?.budget ?? null}
        description={
          limitKey && (
            <>
              Ключ «<span className="break-words">{limitKey.name}</span>» перестанет принимать запросы, когда расходы по нему за период достигнут лимита (ошибка 402
              budget_exceeded).
              {limitKey.budget.limitRub !== null && (
                <>
                  {' '}
                  Сейчас: {formatLimit(limitKey.budget.limitRub)} {PERIOD_PHRASES[limitKey.budget.period]}.
                </>
              )}
            </>
          )
        }
        onClose={() => setLimitKey(null)}
        onSave={(budget) => saveBudget(limitKey!, budget)}
      />
      <KeyPolicyDialog apiKey={policyKey} onClose={() => setPolicyKey(null)} onSave={(patch) => savePolicy(policyKey!, patch)} />
      <KeyResidencyDialog apiKey={residencyKey} teamRuOnly={teamRuOnly} onClose={() => setResidencyKey(null)} onSave={(residency) => saveResidency(residencyKey!, residency)} />
      <ConfirmDialog
        open={deleting !== null}
        title="Удаление ключа"
        message={deleting ? deleteQuestion(deleting.key.name) : ''}
        confirmLabel="Удалить"
        tone="danger"
        loading={deleting?.pending}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setDeleting(null)}
      />
    </>
  )

  if (wide) {
    return (
      <>
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 bg-slate-50/80 text-xs text-slate-500">
              <tr>
                <th scope="col" className="py-2.5 pr-2 pl-6 font-medium">
                  Название и ключ
                </th>
                <th scope="col" className="px-2 py-2.5 font-medium">
                  Статус
                </th>
                <th scope="col" className="px-2 py-2.5 font-medium">
                  Расход и бюджет
                </th>
                <th scope="col" className="px-2 py-2.5 font-medium">
                  Создан
                </th>
                <th scope="col" className="px-2 py-2.5 font-medium">
                  Последнее использование
                </th>
                <th scope="col" className="py-2.5 pr-5 pl-2 text-right font-medium">
                  <span className="sr-only">Действия</span>
                </th>
              </tr>
            </thead>
            {keys.map((key) => {
              const isEditing = editing?.id === key.id
              const locked = key.locked.isActive !== null || key.locked.budget !== null
              const below = locked || hasPolicyLine(key)
              return (
                // a key is its own <tbody>: its row, and under it the policy and the reasons of its locks
                <tbody key={key.id} data-testid="api-key-row" className="border-b border-slate-100 last:border-b-0">
                  <tr className="align-middle">
                    <td className="min-w-40 py-3.5 pr-2 pl-6">
                      {isEditing ? (
                        <NameField editing={editing} onChange={nameChange} onSave={() => void saveRename()} onCancel={cancelRename} />
                      ) : (
                        <span className={cn('block font-medium break-words', key.isActive ? 'text-slate-900' : 'text-slate-500')}>{key.name}</span>
                      )}
                      <code className="mt-0.5 block font-mono text-[13px] whitespace-nowrap text-slate-500">{`${key.keyPrefix}…`}</code>
                      {/* a long address is cut (whole in the tooltip) rather than widen the table past the screen */}
                      <Owner apiKey={key} className="max-w-48" />
                      <KeyMarks apiKey={key} teamRuOnly={teamRuOnly} />
                    </td>
                    <td className="px-2 py-3.5">
                      <StatusBadge active={key.isActive} expired={key.expired} />
                    </td>
                    <td className="px-2 py-3.5">
                      <Spend apiKey={key} />
                    </td>
                    <td className="px-2 py-3.5 whitespace-nowrap text-slate-600">
                      <time dateTime={key.createdAt}>{formatDate(key.createdAt)}</time>
                    </td>
                    <td className="px-2 py-3.5 text-slate-600">
                      <LastUsed value={key.lastUsedAt} />
                    </td>
                    <td className="py-3.5 pr-5 pl-2">
                      {isEditing ? (
                        <RenameButtons editing={editing} onSave={() => void saveRename()} onCancel={cancelRename} className="justify-end" />
                      ) : (
                        <div className="flex items-center justify-end gap-0.5">
                          {toggleButton(key, false, 'mr-1 min-w-[6.5rem]')}
                          <IconAction label="Переименовать" onClick={() => startRename(key)} disabled={busy(key)}>
                            <PencilIcon />
                          </IconAction>
                          {key.kind === 'management' ? (
                            <ActionGap />
                          ) : (
                            <IconAction
                              label="Бюджет"
                              onClick={() => setLimitKey(key)}
                              disabled={busy(key) || key.locked.budget !== null}
                              describedBy={key.locked.budget ? lockIds(key).budget : undefined}
                            >
                              <GaugeIcon />
                            </IconAction>
                          )}
                          <IconAction label="Ограничения" onClick={() => setPolicyKey(key)} disabled={busy(key)}>
                            <SlidersIcon />
                          </IconAction>
                          {key.kind === 'management' ? (
                            <ActionGap />
                          ) : (
                            <IconAction label="Хранение данных" onClick={() => setResidencyKey(key)} disabled={busy(key)}>
                              <ShieldIcon />
                            </IconAction>
                          )}
                          <IconAction label="Удалить" danger onClick={() => setDeleting({ key, pending: false })} disabled={busy(key)}>
                            <TrashIcon />
                          </IconAction>
                        </div>
                      )}
                    </td>
                  </tr>
                  {/* The policy and the reasons under their key, the width of the table: the disabled controls point here. */}
                  {below && (
                    <tr>
                      <td colSpan={6} className="pt-0 pr-5 pb-3.5 pl-6">
                        <PolicyLine apiKey={key} />
                        {locked && (
                          <div className={cn('flex flex-wrap gap-x-6', hasPolicyLine(key) && 'mt-1')}>
                            {key.locked.isActive && <LockNote id={lockIds(key).active} text={key.locked.isActive} className="mt-0 max-w-none" />}
                            {key.locked.budget && <LockNote id={lockIds(key).budget} text={key.locked.budget} className="mt-0 max-w-none" />}
                          </div>
                        )}
                      </td>
                    </tr>
                  )}
                </tbody>
              )
            })}
          </table>
        </div>
        {dialogs}
      </>
    )
  }

  return (
    <>
      <ul className="divide-y divide-slate-100">
        {keys.map((key) => {
          const isEditing = editing?.id === key.id
          return (
            <li key={key.id} data-testid="api-key-row" className="px-4 py-4 sm:px-6">
              <div className="flex items-start justify-between gap-3">
                <div className="min-w-0 flex-1">
                  {isEditing ? (
                    <NameField editing={editing} onChange={nameChange} onSave={() => void saveRename()} onCancel={cancelRename} />
                  ) : (
                    <p className={cn('font-medium break-words', key.isActive ? 'text-slate-900' : 'text-slate-500')}>{key.name}</p>
                  )}
                  <code className="mt-1 block font-mono text-[13px] break-all text-slate-600">{`${key.keyPrefix}…`}</code>
                  <Owner apiKey={key} />
                  <KeyMarks apiKey={key} teamRuOnly={teamRuOnly} />
                </div>
                <StatusBadge active={key.isActive} expired={key.expired} />
              </div>
              <PolicyLine apiKey={key} className="mt-2" />
              {/* phones: label left, value right; wider cards: three labelled columns */}
              <dl className="mt-3 space-y-2 text-sm sm:grid sm:grid-cols-3 sm:gap-x-6 sm:space-y-0">
                <div className="flex items-start justify-between gap-3 sm:block">
                  <dt className="text-slate-500 sm:text-xs">Расход и бюджет</dt>
                  <dd className="text-right sm:mt-0.5 sm:text-left">
                    <Spend apiKey={key} className="flex flex-col items-end sm:block" />
                  </dd>
                </div>
                <div className="flex items-baseline justify-between gap-3 sm:block">
                  <dt className="text-slate-500 sm:text-xs">Создан</dt>
                  <dd className="text-right text-slate-700 sm:mt-0.5 sm:text-left">
                    <time dateTime={key.createdAt}>{formatDate(key.createdAt)}</time>
                  </dd>
                </div>
                <div className="flex items-baseline justify-between gap-3 sm:block">
                  <dt className="min-w-0 text-slate-500 sm:text-xs">Последнее использование</dt>
                  <dd className="shrink-0 text-right whitespace-nowrap text-slate-700 sm:mt-0.5 sm:text-left sm:whitespace-normal">
                    <LastUsed value={key.lastUsedAt} />
                  </dd>
                </div>
              </dl>
              {key.locked.isActive && <LockNote id={lockIds(key).active} text={key.locked.isActive} className="mt-3 max-w-none" />}
              {key.locked.budget && <LockNote id={lockIds(key).budget} text={key.locked.budget} className="mt-3 max-w-none" />}
              {isEditing ? (
                <RenameButtons editing={editing} onSave={() => void saveRename()} onCancel={cancelRename} className="mt-4" />
              ) : (
                <div className="mt-4 grid grid-cols-2 gap-2 sm:flex sm:flex-wrap">
                  {toggleButton(key, true)}
                  <Button size="sm" variant="secondary" onClick={() => startRename(key)} disabled={busy(key)}>
                    <PencilIcon size={15} className="text-slate-500" />
                    Переименовать
                  </Button>
                  {key.kind !== 'management' && (
                    <Button
                      size="sm"
                      variant="secondary"
                      onClick={() => setLimitKey(key)}
                      disabled={busy(key) || key.locked.budget !== null}
                      aria-describedby={key.locked.budget ? lockIds(key).budget : undefined}
                    >
                      <GaugeIcon size={15} className="text-slate-500" />
                      Бюджет
                    </Button>
                  )}
                  <Button size="sm" variant="secondary" onClick={() => setPolicyKey(key)} disabled={busy(key)}>
                    <SlidersIcon size={15} className="text-slate-500" />
                    Ограничения
                  </Button>
                  {/* phones: the longest label and then the deletion each take a row of their own, under the pairs (a management key has neither budget nor residency: its deletion pairs up) */}
                  {key.kind !== 'management' && (
                    <Button size="sm" variant="secondary" onClick={() => setResidencyKey(key)} disabled={busy(key)} className="max-sm:col-span-2">
                      <ShieldIcon size={15} className="text-slate-500" />
                      Хранение данных
                    </Button>
                  )}
                  <Button
                    size="sm"
                    variant="secondary"
                    onClick={() => setDeleting({ key, pending: false })}
                    disabled={busy(key)}
                    className={cn('text-red-600 hover:border-red-200 hover:bg-red-50', key.kind !== 'management' && 'max-sm:col-span-2')}
                  >
                    <TrashIcon size={15} />
                    Удалить
                  </Button>
                </div>
              )}
            </li>
          )
        })}
      </ul>
      {dialogs}
    </>
  )
}
