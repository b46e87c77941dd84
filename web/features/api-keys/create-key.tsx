import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { FormAlert } from '../../components/form-alert'
import { AlertCircleIcon, CheckCircleIcon } from '../../components/icons'
import { inputClasses } from '../../components/input'
import { RESIDENCY_HINTS, RESIDENCY_LABELS, type ResidencyRule, ResidencySelect } from '../../components/residency'
import { errorMessage } from '../../lib/api'
import { toast } from '../../stores/toasts'
import { CopyAction } from './copy-action'
import { type CreatedApiKey, KEYS_LIMIT_MESSAGE, keysApi, MAX_KEYS, NAME_MAX_LENGTH, NAME_REQUIRED_MESSAGE } from './keys-api'

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
  const [name, setName] = useState('')
  const [residency, setResidency] = useState<ResidencyRule>('any')
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)
  const atLimit = keyCount !== undefined && keyCount >= MAX_KEYS

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (pending || atLimit) return
    const trimmed = name.trim()
    if (!trimmed) {
      setError(NAME_REQUIRED_MESSAGE)
      return
    }
    setError(null)
    setPending(true)
    try {
      const created = await keysApi.create(trimmed, residency)
      setName('')
      setResidency('any')
      await onCreated(created)
    } catch (err) {
      toast.error(errorMessage(err, 'Ошибка создания ключа'))
    } finally {
      setPending(false)
    }
  }

  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">Новый ключ</h2>
      <p className="mt-1 text-sm text-slate-500">Дайте ключу понятное название — по нему вы отличите приложения друг от друга.</p>
      <form noValidate onSubmit={onSubmit} className="mt-4">
        {/* phones: name, choice, what it means, button; wider: the three in a row, the meaning under them */}
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
                if (error) setError(null)
              }}
              placeholder="Например, Мой проект"
              maxLength={NAME_MAX_LENGTH}
              autoComplete="off"
              disabled={atLimit}
              aria-invalid={error ? true : undefined}
              className={inputClasses}
            />
          </div>
          <ResidencySelect label="Хранение данных" value={residency} onChange={setResidency} disabled={atLimit} describedBy={hintId} className="md:w-60" />
          <Button type="submit" loading={pending} disabled={atLimit} className="max-md:order-last md:w-auto">
            Создать ключ
          </Button>
          <p id={hintId} className="-mt-1 text-xs text-slate-500 md:basis-full" data-testid="key-residency-hint">
            {RESIDENCY_LABELS[residency]}: {RESIDENCY_HINTS[residency]}.{teamRuOnly && ' Команда разрешает только провайдеров в России — это действует для всех её ключей.'}
          </p>
        </div>
        {atLimit && <p className="mt-2 text-sm text-slate-500">{KEYS_LIMIT_MESSAGE}. Удалите ненужный ключ, чтобы создать новый.</p>}
        {error && (
          <div className="mt-3">
            <FormAlert message={error} />
          </div>
        )}
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
          <p className="mt-0.5 text-sm break-words text-slate-500">Ключ «{created.name}» создан и уже работает.</p>
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
