// «Ограничения» of an existing key: requests and tokens per minute, models, addresses, expiry and
// «Ответ по средствам» (PATCH /api/auth/api-keys/{id}; only what changed is sent, null clears a
// field). A policy an admin or the team's owner set can only be tightened by a member: the server
// refuses the rest with 403, and its message is shown here, in the dialog.
import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { Button } from '../../components/button'
import { Dialog } from '../../components/dialog'
import { FormAlert } from '../../components/form-alert'
import { LockIcon } from '../../components/icons'
import {
  draftOf,
  EMPTY_DRAFT,
  ExpiryField,
  endOfMoscowDay,
  FitToBalanceField,
  fieldOfMessage,
  moscowDateInput,
  type PolicyDraft,
  type PolicyField,
  PolicyFields,
  readDraft,
  sameList,
} from '../../components/key-policy'
import { useAccount } from '../../lib/account'
import { errorMessage } from '../../lib/api'
import { type ApiKey, type ApiKeyPatch, useTeamKeyPolicy } from './keys-api'

const MANAGEMENT_FIELDS: readonly PolicyField[] = ['ips']

/** What differs from the key's policy now; an untouched expiry is not re-sent (it may be a moment, not a day's end). */
export function policyPatch(key: ApiKey, draft: PolicyDraft, expires: string, fit: boolean): ApiKeyPatch | { error: string; field: PolicyField } {
  const reading = readDraft(draft)
  if (!reading.ok) return { error: reading.message, field: reading.field }
  const next = reading.value
  const patch: ApiKeyPatch = {}
  if (key.kind !== 'management') {
    if (next.rpmLimit !== key.rpmLimit) patch.rpmLimit = next.rpmLimit
    if (next.tpmLimit !== key.tpmLimit) patch.tpmLimit = next.tpmLimit
    if (!sameList(next.allowedModels, key.allowedModels)) patch.allowedModels = next.allowedModels
    if (fit !== key.fitToBalance) patch.fitToBalance = fit
  }
  if (!sameList(next.allowedIps, key.allowedIps)) patch.allowedIps = next.allowedIps
  const was = key.expiresAt ? moscowDateInput(key.expiresAt) : ''
  if (expires !== was) {
    if (expires && expires < moscowDateInput(Date.now())) return { error: 'Дата окончания действия уже прошла', field: 'expiry' }
    patch.expiresAt = expires ? endOfMoscowDay(expires) : null
  }
  return patch
}

export function KeyPolicyDialog({
  apiKey,
  onClose,
  onSave,
}: {
  apiKey: ApiKey | null
  onClose: () => void
  /** Saves the change; throws with the server's message to keep the dialog open and show it. */
  onSave: (patch: ApiKeyPatch) => Promise<void>
}) {
  const id = useId()
  const [draft, setDraft] = useState<PolicyDraft>(EMPTY_DRAFT)
  const [expires, setExpires] = useState('')
  const [fit, setFit] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [invalid, setInvalid] = useState<PolicyField | null>(null)
  const [pending, setPending] = useState(false)
  const alertRef = useRef<HTMLDivElement>(null)

  useEffect(() => {
    if (error) alertRef.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' })
  }, [error])

  // Fill the fields when the dialog opens for a key (not on every revalidation of the list).
  const openedFor = apiKey?.id ?? null
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key's id is the trigger; its later revalidations must not overwrite what is being typed
  useEffect(() => {
    if (!apiKey) return
    setDraft(draftOf(apiKey))
    setExpires(apiKey.expiresAt ? moscowDateInput(apiKey.expiresAt) : '')
    setFit(apiKey.fitToBalance)
    setError(null)
    setInvalid(null)
    setPending(false)
  }, [openedFor])

  const edited = () => {
    if (error) {
      setError(null)
      setInvalid(null)
    }
  }

  async function submit(event?: FormEvent) {
    event?.preventDefault()
    if (pending || !apiKey) return
    const patch = policyPatch(apiKey, draft, expires, fit)
    if ('error' in patch) {
      setError(patch.error)
      setInvalid(patch.field)
      return
    }
    if (Object.keys(patch).length === 0) {
      onClose()
      return
    }
    setPending(true)
    try {
      await onSave(patch)
    } catch (err) {
      const message = errorMessage(err, 'Не удалось сохранить ограничения')
      setError(message)
      setInvalid(fieldOfMessage(message))
      setPending(false)
    }
  }

  const management = apiKey?.kind === 'management'
  const lock = apiKey?.locked.policy ?? null
  const { teamId } = useAccount()
  const teamFits = useTeamKeyPolicy(teamId)?.fitToBalance ?? false
  return (
    <Dialog
      open={apiKey !== null}
      onClose={() => {
        if (!pending) onClose()
      }}
      title="Ограничения ключа"
      className="sm:max-w-xl"
      description={
        apiKey && (
          <>
            Что разрешено ключу «<span className="break-words">{apiKey.name}</span>». Пустое поле — без ограничения.
            {management && ' Управляющий ключ не работает с /v1: для него задаются только адреса и срок действия.'}
          </>
        )
      }
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={pending}>
            Отмена
          </Button>
          <Button type="submit" form={`${id}-form`} loading={pending}>
            Сохранить
          </Button>
        </>
      }
    >
      <form id={`${id}-form`} noValidate onSubmit={submit} className="space-y-4">
        {lock && (
          <div data-testid="key-policy-lock" className="flex items-start gap-2 rounded-lg border border-slate-200 bg-slate-50 px-3 py-2.5 text-sm text-slate-700">
            <LockIcon size={14} className="mt-0.5 shrink-0 text-slate-500" />
            <div className="min-w-0">
              <p>{lock}</p>
              <p className="mt-1 text-xs text-slate-500">Ужесточить — значит уменьшить лимиты, сузить списки моделей и адресов или приблизить срок.</p>
            </div>
          </div>
        )}
        <PolicyFields
          draft={draft}
          onChange={(next) => {
            setDraft(next)
            edited()
          }}
          invalid={invalid}
          disabled={pending}
          only={management ? MANAGEMENT_FIELDS : undefined}
        />
        <ExpiryField
          value={expires}
          onChange={(next) => {
            setExpires(next)
            edited()
          }}
          invalid={invalid === 'expiry'}
          disabled={pending}
        />
        {!management && (
          <FitToBalanceField
            checked={fit}
            onChange={(next) => {
              setFit(next)
              edited()
            }}
            note={teamFits ? 'Команда уже включила ответ по средствам для всех своих запросов.' : undefined}
            disabled={pending}
            className="border-t border-slate-100 pt-4"
          />
        )}
        {/* the footer's buttons may be below the fold of a long dialog: bring the message into view */}
        <div ref={alertRef} className="scroll-mb-24">
          <FormAlert message={error} />
        </div>
      </form>
    </Dialog>
  )
}
