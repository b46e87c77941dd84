// «Политика ключей» of a team (issue 36): the models every request of the team may call, the
// policy a new team key starts with, and «Ответ по средствам» for every request (issue 37). The owner and admins edit it (PATCH /api/teams/{id}/policy);
// the other roles read it. A key may narrow the team's policy, never widen it (the server checks).
import { type FormEvent, useId, useState } from 'react'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { FormAlert } from '../../components/form-alert'
import {
  draftOf,
  FIT_HINT,
  FitToBalanceField,
  fieldOfMessage,
  type KeyDefaultsValues,
  ListField,
  MODELS_HINT,
  mergeList,
  type PolicyDraft,
  type PolicyField,
  PolicyFields,
  parseWhole,
  policyParts,
  readDraft,
  sameList,
  type TeamPolicyValues,
  WholeField,
  wholeToInput,
} from '../../components/key-policy'
import { errorMessage } from '../../lib/api'
import { toast } from '../../stores/toasts'
import { type TeamDetails, teamsApi } from './teams-api'

type Invalid = PolicyField | 'teamModels' | 'days' | null

interface Form {
  teamModels: string[]
  teamModelsText: string
  defaults: PolicyDraft
  days: string
  fit: boolean
}

const formOf = (policy: TeamPolicyValues): Form => ({
  teamModels: policy.allowedModels ?? [],
  teamModelsText: '',
  defaults: draftOf(policy.keyDefaults ?? {}),
  days: wholeToInput(policy.keyDefaults?.expiresInDays),
  fit: policy.fitToBalance,
})

/** The form as the API takes it, or the field that is wrong and why. */
function readForm(form: Form): { ok: true; value: TeamPolicyValues } | { ok: false; field: Invalid; message: string } {
  const defaults = readDraft(form.defaults)
  if (!defaults.ok) return { ok: false, field: defaults.field, message: defaults.message }
  const days = parseWhole(form.days)
  if (days === undefined) return { ok: false, field: 'days', message: 'Срок действия новых ключей: введите целое число дней больше нуля или оставьте поле пустым' }
  const models = mergeList(form.teamModels, form.teamModelsText)
  const keyDefaults: KeyDefaultsValues = { ...defaults.value, expiresInDays: days }
  const empty = Object.values(keyDefaults).every((v) => v === null)
  return { ok: true, value: { allowedModels: models.length ? models : null, keyDefaults: empty ? null : keyDefaults, fitToBalance: form.fit } }
}

function samePolicy(a: TeamPolicyValues, b: TeamPolicyValues): boolean {
  const x = a.keyDefaults
  const y = b.keyDefaults
  const sameDefaults =
    x === null || y === null
      ? x === y
      : x.rpmLimit === y.rpmLimit &&
        x.tpmLimit === y.tpmLimit &&
        x.expiresInDays === y.expiresInDays &&
        sameList(x.allowedModels, y.allowedModels) &&
        sameList(x.allowedIps, y.allowedIps)
  return sameDefaults && sameList(a.allowedModels, b.allowedModels) && a.fitToBalance === b.fitToBalance
}

function ReadOnlyPolicy({ policy }: { policy: TeamPolicyValues }) {
  const defaults = policy.keyDefaults ? policyParts(policy.keyDefaults) : []
  return (
    <div data-testid="team-key-policy-value" className="mt-3 space-y-3 text-sm">
      <dl className="space-y-2">
        <div>
          <dt className="text-slate-500">Разрешённые модели команды</dt>
          <dd className="mt-0.5 break-words text-slate-900">
            {policy.allowedModels?.length ? <span className="font-mono text-[13px]">{policy.allowedModels.join(', ')}</span> : 'все модели'}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">Новые ключи по умолчанию</dt>
          <dd className="mt-0.5 break-words text-slate-900">{defaults.length ? defaults.join(' · ') : 'без ограничений'}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Ответ по средствам</dt>
          <dd data-testid="team-fit-to-balance-value" className="mt-0.5 break-words text-slate-900">
            {policy.fitToBalance ? 'включён для всех запросов команды' : 'выключен'}
          </dd>
          <dd className="mt-0.5 text-xs leading-5 text-slate-500">{FIT_HINT}.</dd>
        </div>
      </dl>
      <p className="text-slate-500">Изменить могут владелец и администраторы.</p>
    </div>
  )
}

function PolicyForm({ team, policy, onChanged }: { team: TeamDetails; policy: TeamPolicyValues; onChanged: () => Promise<unknown> }) {
  const id = useId()
  const [form, setForm] = useState<Form>(() => formOf(policy))
  const [error, setError] = useState<string | null>(null)
  const [invalid, setInvalid] = useState<Invalid>(null)
  const [pending, setPending] = useState(false)
  const reading = readForm(form)
  const changed = !reading.ok || !samePolicy(reading.value, policy)

  const edit = (next: Partial<Form>) => {
    setForm((f) => ({ ...f, ...next }))
    if (error) {
      setError(null)
      setInvalid(null)
    }
  }

  async function save(event: FormEvent) {
    event.preventDefault()
    if (pending) return
    if (!reading.ok) {
      setError(reading.message)
      setInvalid(reading.field)
      return
    }
    if (!changed) return
    setPending(true)
    try {
      const saved = await teamsApi.setPolicy(team.id, reading.value)
      setForm(formOf(saved))
      toast.success('Политика ключей сохранена')
      await onChanged()
    } catch (err) {
      const message = errorMessage(err, 'Не удалось сохранить политику ключей')
      setError(message)
      const field = fieldOfMessage(message)
      setInvalid(field === 'models' && /команд/i.test(message) ? 'teamModels' : field)
    } finally {
      setPending(false)
    }
  }

  return (
    <form onSubmit={save} noValidate className="mt-4 space-y-5">
      <ListField
        label="Разрешённые модели команды"
        values={form.teamModels}
        text={form.teamModelsText}
        onChange={(teamModels, teamModelsText) => edit({ teamModels, teamModelsText })}
        placeholder="openai/*"
        hint={<>{MODELS_HINT} Пусто — все модели. Действует для всех ключей команды и для Playground.</>}
        addLabel="Добавить модель команды"
        invalid={invalid === 'teamModels'}
        disabled={pending}
      />
      <div className="border-t border-slate-100 pt-4">
        <fieldset className="min-w-0 space-y-4" aria-describedby={`${id}-defaults`}>
          <legend className="text-sm font-semibold text-slate-900">Новые ключи по умолчанию</legend>
          <p id={`${id}-defaults`} className="-mt-3 text-xs text-slate-500">
            С этими ограничениями создаётся новый ключ команды, если их не задать при создании. Ключи, созданные раньше, не меняются.
          </p>
          <PolicyFields
            draft={form.defaults}
            onChange={(defaults) => edit({ defaults })}
            invalid={invalid === 'teamModels' || invalid === 'days' ? null : invalid}
            disabled={pending}
          />
          <WholeField
            label="Срок действия новых ключей, дней"
            value={form.days}
            onChange={(days) => edit({ days })}
            placeholder="Бессрочно"
            hint="Ключ перестанет работать через столько дней после создания. Пусто — бессрочно."
            invalid={invalid === 'days'}
            disabled={pending}
            className="sm:max-w-[calc(50%-0.5rem)]"
          />
        </fieldset>
      </div>
      <FitToBalanceField
        label="Ответ по средствам для всей команды"
        hint={`${FIT_HINT}. Действует для всех ключей команды и для Playground, даже если в ключе не включено.`}
        checked={form.fit}
        onChange={(fit) => edit({ fit })}
        disabled={pending}
        className="border-t border-slate-100 pt-4"
      />
      <FormAlert message={error} />
      <div className="flex justify-end">
        <Button type="submit" variant="secondary" loading={pending} disabled={!changed} className="w-full sm:w-auto">
          Сохранить
        </Button>
      </div>
    </form>
  )
}

/** The card on the team page: the form for the owner and admins, the policy as text for the rest. */
export function TeamKeyPolicy({ team, editable, onChanged }: { team: TeamDetails; editable: boolean; onChanged: () => Promise<unknown> }) {
  const policy = team.policy
  return (
    <Card className="p-4 sm:p-6" data-testid="team-key-policy">
      <h2 className="text-base font-semibold text-slate-900">Политика ключей</h2>
      <p className="mt-1 text-sm text-slate-500">
        Какие модели доступны команде и с какими ограничениями создаются новые ключи. Ключ может сузить политику команды, но не расширить; участник не может ослабить ограничения,
        заданные владельцем или администратором.
      </p>
      {/* a saved policy re-mounts the form with it */}
      {editable ? (
        <PolicyForm key={JSON.stringify([policy.allowedModels, policy.keyDefaults, policy.fitToBalance])} team={team} policy={policy} onChanged={onChanged} />
      ) : (
        <ReadOnlyPolicy policy={policy} />
      )}
    </Card>
  )
}
