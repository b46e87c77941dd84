// /app/team: in the personal account, the user's teams and «Создать команду»; in a team, its
// members with roles and budgets, invitations and (for the owner) transfer and deletion. What the
// role cannot do is not shown; the server checks every call anyway.
import { type FormEvent, useId, useState } from 'react'
import { mutate as mutateGlobal } from 'swr'
import { Link, useLocation } from 'wouter'
import { formatDate, formatMoscowDateTime, formatRubles } from '../../../src/content/format'
import { BudgetDialog, BudgetMeter } from '../../components/budget'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { ConfirmDialog } from '../../components/dialog'
import { FormAlert } from '../../components/form-alert'
import { BuildingIcon, LockIcon, MailIcon, PlusIcon, TrashIcon } from '../../components/icons'
import { inputClasses } from '../../components/input'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { RESIDENCY_LABELS, ResidencyRadios, type ResidencyRule, RuOnlyBadge } from '../../components/residency'
import { Select } from '../../components/select'
import { PageSpinner } from '../../components/spinner'
import { ROLE_LABELS, TEAMS_KEY, useAccount, useTeams } from '../../lib/account'
import { errorMessage } from '../../lib/api'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useAccountContext } from '../../stores/account'
import { useSession } from '../../stores/session'
import { toast } from '../../stores/toasts'
import { CreateTeamDialog } from './create-team-dialog'
import { TeamKeyPolicy } from './team-policy'
import { ASSIGNABLE_ROLES, ROLE_HINTS, type TeamDetails, type TeamMember, type TeamRole, teamsApi, useInvitations, useTeam } from './teams-api'

function TeamsOverview() {
  useDocumentTitle('Команды')
  const { data: teams, error, mutate } = useTeams()
  const setTeam = useAccountContext((s) => s.setTeam)
  const [creating, setCreating] = useState(false)
  return (
    <>
      <PageHeading
        title="Команды"
        description="Общий баланс в рублях, участники с ролями и бюджеты, которые обновляются по календарю."
        actions={
          <Button onClick={() => setCreating(true)}>
            <PlusIcon size={16} />
            Создать команду
          </Button>
        }
      />
      <Card className="p-4 sm:p-6">
        {!teams && error ? (
          <LoadError message="Не удалось загрузить команды." onRetry={() => void mutate()} />
        ) : !teams ? (
          <ListSkeleton />
        ) : teams.length === 0 ? (
          <div className="flex flex-col items-center py-8 text-center">
            <div className="mb-3 flex h-11 w-11 items-center justify-center rounded-full bg-indigo-50 text-indigo-600">
              <BuildingIcon size={20} />
            </div>
            <p className="text-[15px] font-medium text-slate-800">Вы пока не состоите ни в одной команде</p>
            <p className="mt-1 max-w-md text-sm text-slate-500">
              Создайте команду, пригласите коллег по e-mail и задайте каждому бюджет на день, неделю или месяц. Приглашение в чужую команду придёт письмом.
            </p>
          </div>
        ) : (
          <ul className="divide-y divide-slate-100" data-testid="teams-list">
            {teams.map((t) => (
              <li key={t.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
                <div className="min-w-0">
                  <p className="font-medium break-words text-slate-900">{t.name}</p>
                  <p className="text-sm text-slate-500">
                    {ROLE_LABELS[t.role]} · баланс {formatRubles(t.balance)}
                    {t.memberCount !== undefined && ` · участников: ${t.memberCount}`}
                  </p>
                </div>
                <Button size="sm" variant="secondary" onClick={() => setTeam(t.id)}>
                  Перейти в команду
                </Button>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <CreateTeamDialog open={creating} onClose={() => setCreating(false)} />
    </>
  )
}

/** Role of a member: a drop-down for those who may change it, else the label. */
function RoleCell({ member, editable, onChange }: { member: TeamMember; editable: boolean; onChange: (role: TeamRole) => void }) {
  const id = useId()
  if (!editable || member.role === 'owner') return <span className="text-sm whitespace-nowrap text-slate-700">{ROLE_LABELS[member.role]}</span>
  return (
    <>
      <label htmlFor={id} className="sr-only">
        Роль {member.email}
      </label>
      <Select id={id} value={member.role} onChange={(e) => onChange(e.target.value as TeamRole)} className="h-9 text-sm" wrapperClassName="w-40">
        {ASSIGNABLE_ROLES.map((r) => (
          <option key={r} value={r}>
            {ROLE_LABELS[r]}
          </option>
        ))}
      </Select>
    </>
  )
}

function Members({ team, onChanged }: { team: TeamDetails; onChanged: () => Promise<unknown> }) {
  const me = useSession((s) => s.user?.id)
  const setTeam = useAccountContext((s) => s.setTeam)
  const [, navigate] = useLocation()
  const [budgetFor, setBudgetFor] = useState<TeamMember | null>(null)
  const [removing, setRemoving] = useState<{ member: TeamMember; pending: boolean } | null>(null)
  // What the caller may do to each member is the server's answer (m.access): an admin never acts on
  // an owner, never changes another admin's role, and cannot change a budget the owner or another admin set on them.

  async function changeRole(m: TeamMember, role: TeamRole) {
    try {
      await teamsApi.updateMember(team.id, m.userId, { role })
      toast.success(`Роль ${m.email}: ${ROLE_LABELS[role]}`)
      await onChanged()
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось сменить роль'))
    }
  }

  async function saveBudget(m: TeamMember, budget: { limitRub: number | null; period: TeamMember['budget']['period'] }) {
    try {
      await teamsApi.updateMember(team.id, m.userId, { budget })
      toast.success(budget.limitRub === null ? 'Бюджет снят' : 'Бюджет сохранён')
      setBudgetFor(null)
      await onChanged()
      return true
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось сохранить бюджет'))
      return false
    }
  }

  async function remove() {
    if (!removing || removing.pending) return
    const { member } = removing
    setRemoving({ member, pending: true })
    try {
      const result = await teamsApi.removeMember(team.id, member.userId)
      setRemoving(null)
      if (member.userId === me) {
        toast.success(`Вы покинули команду «${team.name}»`)
        setTeam(null)
        await mutateGlobal(TEAMS_KEY)
        navigate('/app/team')
        return
      }
      toast.success(result.revokedKeys ? `Участник исключён, его ключей отозвано: ${result.revokedKeys}` : 'Участник исключён')
      await onChanged()
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось исключить участника'))
      setRemoving({ member, pending: false })
    }
  }

  return (
    <Card className="overflow-hidden">
      <div className="flex flex-wrap items-baseline justify-between gap-2 px-4 pt-4 sm:px-6 sm:pt-6">
        <h2 className="text-base font-semibold text-slate-900">Участники</h2>
        <span className="text-xs text-slate-500">бюджеты обновляются в 00:00 по Москве</span>
      </div>
      <ul className="mt-2 divide-y divide-slate-100" data-testid="team-members">
        {team.members.map((m) => (
          <li key={m.userId} data-testid="team-member-row" data-email={m.email} className="flex flex-col gap-3 px-4 py-3.5 sm:px-6 md:flex-row md:items-center">
            <div className="min-w-0 md:w-64">
              <p className="font-medium break-all text-slate-900">
                {m.email}
                {m.userId === me && <span className="ml-1.5 text-xs font-normal text-slate-500">(вы)</span>}
              </p>
              <p className="text-xs text-slate-500">в команде с {formatDate(m.joinedAt)}</p>
            </div>
            <div className="md:w-44">
              <RoleCell member={m} editable={m.access.manage} onChange={(role) => void changeRole(m, role)} />
            </div>
            <div className="min-w-0 md:flex-1">
              <BudgetMeter budget={m.budget} label={`Бюджет ${m.email}`} />
              {m.access.budgetLock && (
                <p id={`budget-lock-${m.userId}`} data-testid="member-budget-lock" className="mt-1.5 flex max-w-80 items-start gap-1 text-xs text-slate-500">
                  <LockIcon size={12} className="mt-0.5 shrink-0" />
                  <span>{m.access.budgetLock}</span>
                </p>
              )}
            </div>
            <div className="flex flex-wrap gap-2 md:justify-end">
              {m.access.budget && (
                <Button
                  size="sm"
                  variant="secondary"
                  onClick={() => setBudgetFor(m)}
                  disabled={m.access.budgetLock !== null}
                  aria-label={`Бюджет ${m.email}`}
                  aria-describedby={m.access.budgetLock ? `budget-lock-${m.userId}` : undefined}
                >
                  Бюджет
                </Button>
              )}
              {m.userId === me
                ? m.role !== 'owner' && (
                    <Button size="sm" variant="secondary" onClick={() => setRemoving({ member: m, pending: false })}>
                      Покинуть команду
                    </Button>
                  )
                : m.access.manage && (
                    <Button
                      size="sm"
                      variant="secondary"
                      className="text-red-600 hover:border-red-200 hover:bg-red-50"
                      onClick={() => setRemoving({ member: m, pending: false })}
                      aria-label={`Исключить ${m.email}`}
                    >
                      <TrashIcon size={15} />
                      Исключить
                    </Button>
                  )}
            </div>
          </li>
        ))}
      </ul>
      <BudgetDialog
        open={budgetFor !== null}
        title="Бюджет участника"
        budget={budgetFor?.budget ?? null}
        description={
          budgetFor && (
            <>
              Запросы <span className="font-medium break-all text-slate-900">{budgetFor.email}</span> с баланса команды — в Playground и с его ключами — остановятся, когда расходы
              за период достигнут лимита.
            </>
          )
        }
        onClose={() => setBudgetFor(null)}
        onSave={(budget) => saveBudget(budgetFor!, budget)}
      />
      <ConfirmDialog
        open={removing !== null}
        title={removing?.member.userId === me ? 'Выход из команды' : 'Исключение участника'}
        message={
          removing?.member.userId === me
            ? `Покинуть команду «${team.name}»? Ваши ключи команды перестанут работать сразу.`
            : `Исключить ${removing?.member.email ?? ''}? Его ключи команды перестанут работать сразу.`
        }
        confirmLabel={removing?.member.userId === me ? 'Покинуть' : 'Исключить'}
        tone="danger"
        loading={removing?.pending}
        onConfirm={() => void remove()}
        onCancel={() => setRemoving(null)}
      />
    </Card>
  )
}

function Invitations({ team }: { team: TeamDetails }) {
  const emailId = useId()
  const roleId = useId()
  const { data, error, mutate } = useInvitations(team.id, true)
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<TeamRole>('member')
  const [formError, setFormError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)

  async function invite(event: FormEvent) {
    event.preventDefault()
    if (pending) return
    if (!email.trim()) {
      setFormError('Введите email')
      return
    }
    setPending(true)
    try {
      const invitation = await teamsApi.invite(team.id, email.trim(), role)
      toast.success(`Приглашение отправлено на ${invitation.email}`)
      setEmail('')
      setFormError(null)
      await mutate()
    } catch (err) {
      setFormError(errorMessage(err, 'Не удалось отправить приглашение'))
    } finally {
      setPending(false)
    }
  }

  async function revoke(id: string, address: string) {
    try {
      await teamsApi.revokeInvitation(team.id, id)
      toast.success(`Приглашение для ${address} отозвано`)
      await mutate()
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось отозвать приглашение'))
    }
  }

  return (
    <Card className="p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">Пригласить участника</h2>
      <p className="mt-1 text-sm text-slate-500">Письмо со ссылкой придёт на адрес; ссылка действует 7 дней и срабатывает один раз.</p>
      <form onSubmit={invite} noValidate className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-end" data-testid="invite-form">
        <div className="min-w-0 flex-1 space-y-1.5">
          <label htmlFor={emailId} className="text-sm font-medium text-slate-700">
            Email
          </label>
          <input
            id={emailId}
            type="email"
            autoComplete="off"
            value={email}
            onChange={(e) => {
              setEmail(e.target.value)
              if (formError) setFormError(null)
            }}
            aria-invalid={formError ? true : undefined}
            placeholder="colleague@example.ru"
            className={inputClasses}
          />
        </div>
        <div className="space-y-1.5 sm:w-48">
          <label htmlFor={roleId} className="text-sm font-medium text-slate-700">
            Роль
          </label>
          <Select id={roleId} value={role} onChange={(e) => setRole(e.target.value as TeamRole)}>
            {ASSIGNABLE_ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </Select>
        </div>
        <Button type="submit" loading={pending}>
          <MailIcon size={16} />
          Пригласить
        </Button>
      </form>
      <p className="mt-2 text-xs text-slate-500">
        {ROLE_LABELS[role]}: {ROLE_HINTS[role]}.
      </p>
      {formError && (
        <div className="mt-3">
          <FormAlert message={formError} />
        </div>
      )}
      <h3 className="mt-6 text-sm font-semibold text-slate-900">Открытые приглашения</h3>
      {!data && error ? (
        <LoadError message="Не удалось загрузить приглашения." onRetry={() => void mutate()} />
      ) : !data ? (
        <ListSkeleton rows={1} />
      ) : data.length === 0 ? (
        <EmptyNote>Открытых приглашений нет</EmptyNote>
      ) : (
        <ul className="mt-1 divide-y divide-slate-100">
          {data.map((i) => (
            <li key={i.id} data-testid="invitation-row" className="flex flex-wrap items-center justify-between gap-2 py-2.5">
              <div className="min-w-0">
                <p className="text-sm font-medium break-all text-slate-800">{i.email}</p>
                <p className="text-xs text-slate-500">
                  {ROLE_LABELS[i.role]} · действует до {formatMoscowDateTime(i.expiresAt)}
                </p>
              </div>
              <Button size="sm" variant="secondary" onClick={() => void revoke(i.id, i.email)} aria-label={`Отозвать приглашение для ${i.email}`}>
                Отозвать
              </Button>
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}

function Rename({ team, onDone }: { team: TeamDetails; onDone: () => Promise<unknown> }) {
  const id = useId()
  const [name, setName] = useState(team.name)
  const [pending, setPending] = useState(false)
  async function save(event: FormEvent) {
    event.preventDefault()
    if (pending || name.trim() === team.name) return
    setPending(true)
    try {
      await teamsApi.rename(team.id, name.trim())
      toast.success('Название сохранено')
      await Promise.all([onDone(), mutateGlobal(TEAMS_KEY)])
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось переименовать команду'))
    } finally {
      setPending(false)
    }
  }
  return (
    <form onSubmit={save} className="flex flex-col gap-2 sm:flex-row sm:items-end">
      <div className="min-w-0 flex-1 space-y-1.5">
        <label htmlFor={id} className="text-sm font-medium text-slate-700">
          Название команды
        </label>
        <input id={id} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} className={inputClasses} />
      </div>
      <Button type="submit" variant="secondary" loading={pending} disabled={!name.trim() || name.trim() === team.name}>
        Сохранить
      </Button>
    </form>
  )
}

const RESIDENCY_NOTE =
  'Действует для всех ключей команды и для Playground в контексте команды: с «Только в РФ» запросы идут только к провайдерам, которые хранят и обрабатывают данные в России, а модели без таких провайдеров недоступны.'

/** «Хранение данных команды»: the owner and admins choose (PATCH residency), the others see what is set. */
function Residency({ team, editable, onChanged }: { team: TeamDetails; editable: boolean; onChanged: () => Promise<unknown> }) {
  const residency = team.residency
  const [value, setValue] = useState<ResidencyRule | null>(null)
  const [pending, setPending] = useState(false)
  const chosen = value ?? residency
  async function save(event: FormEvent) {
    event.preventDefault()
    if (pending || chosen === residency) return
    setPending(true)
    try {
      await teamsApi.setResidency(team.id, chosen)
      toast.success(chosen === 'ru' ? 'Запросы команды идут только к провайдерам в РФ' : 'Запросы команды идут к любым провайдерам')
      // The details here; the list for the keys page's marks and the account switcher.
      await Promise.all([onChanged(), mutateGlobal(TEAMS_KEY)])
      setValue(null)
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось сохранить хранение данных'))
    } finally {
      setPending(false)
    }
  }
  return (
    <Card className="p-4 sm:p-6" data-testid="team-residency">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="text-base font-semibold text-slate-900">Хранение данных команды</h2>
        {residency === 'ru' && <RuOnlyBadge title="Запросы команды идут только к провайдерам в России" />}
      </div>
      <p className="mt-1 text-sm text-slate-500">{RESIDENCY_NOTE}</p>
      {editable ? (
        <form onSubmit={save} className="mt-4">
          <ResidencyRadios legend="Провайдеры для запросов команды" value={chosen} onChange={setValue} disabled={pending} />
          <div className="mt-3 flex justify-end">
            <Button type="submit" variant="secondary" loading={pending} disabled={chosen === residency} className="w-full sm:w-auto">
              Сохранить
            </Button>
          </div>
        </form>
      ) : (
        <p className="mt-3 text-sm text-slate-700" data-testid="team-residency-value">
          Сейчас: <span className="font-medium text-slate-900">{RESIDENCY_LABELS[residency]}</span>. Изменить могут владелец и администраторы.
        </p>
      )}
    </Card>
  )
}

function OwnerZone({ team }: { team: TeamDetails }) {
  const transferId = useId()
  const me = useSession((s) => s.user?.id)
  const setTeam = useAccountContext((s) => s.setTeam)
  const [, navigate] = useLocation()
  const others = team.members.filter((m) => m.userId !== me)
  const [heir, setHeir] = useState('')
  const [confirm, setConfirm] = useState<'transfer' | 'delete' | null>(null)
  const [pending, setPending] = useState(false)

  async function run() {
    setPending(true)
    try {
      if (confirm === 'transfer') {
        await teamsApi.transfer(team.id, heir)
        toast.success('Владение передано: теперь вы администратор команды')
        await mutateGlobal(TEAMS_KEY)
        await mutateGlobal(`/api/teams/${encodeURIComponent(team.id)}`)
      } else {
        await teamsApi.remove(team.id)
        toast.success(`Команда «${team.name}» удалена`)
        setTeam(null)
        await mutateGlobal(TEAMS_KEY)
        navigate('/app/team')
      }
      setConfirm(null)
    } catch (err) {
      toast.error(errorMessage(err, confirm === 'transfer' ? 'Не удалось передать владение' : 'Не удалось удалить команду'))
    } finally {
      setPending(false)
    }
  }

  return (
    <Card className="space-y-5 border-red-100 p-4 sm:p-6">
      <h2 className="text-base font-semibold text-slate-900">Владение и удаление</h2>
      {others.length > 0 && (
        <div className="flex flex-col gap-2 sm:flex-row sm:items-end">
          <div className="min-w-0 flex-1 space-y-1.5">
            <label htmlFor={transferId} className="text-sm font-medium text-slate-700">
              Передать владение
            </label>
            <Select id={transferId} value={heir} onChange={(e) => setHeir(e.target.value)}>
              <option value="">Выберите участника</option>
              {others.map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.email}
                </option>
              ))}
            </Select>
          </div>
          <Button variant="secondary" disabled={!heir} onClick={() => setConfirm('transfer')}>
            Передать
          </Button>
        </div>
      )}
      <div className="flex flex-col gap-2 border-t border-slate-100 pt-4 sm:flex-row sm:items-center sm:justify-between">
        <p className="text-sm text-slate-600">Удалить команду можно, когда на её балансе ничего не осталось.</p>
        <Button variant="danger" onClick={() => setConfirm('delete')}>
          Удалить команду
        </Button>
      </div>
      <ConfirmDialog
        open={confirm !== null}
        title={confirm === 'transfer' ? 'Передача владения' : 'Удаление команды'}
        message={
          confirm === 'transfer'
            ? `Передать владение командой «${team.name}» участнику ${others.find((m) => m.userId === heir)?.email ?? ''}? Вы станете администратором.`
            : `Удалить команду «${team.name}»? Ключи команды перестанут работать, история операций сохранится.`
        }
        confirmLabel={confirm === 'transfer' ? 'Передать' : 'Удалить'}
        tone={confirm === 'delete' ? 'danger' : 'primary'}
        loading={pending}
        onConfirm={() => void run()}
        onCancel={() => setConfirm(null)}
      />
    </Card>
  )
}

function TeamSettings({ teamId }: { teamId: string }) {
  const { data: team, error, isValidating, mutate } = useTeam(teamId)
  const me = useSession((s) => s.user?.id)
  useDocumentTitle(team ? `Команда «${team.name}»` : 'Команда')
  if (!team && error) return <LoadError message={errorMessage(error, 'Не удалось загрузить команду.')} retrying={isValidating} onRetry={() => void mutate()} />
  if (!team) return <PageSpinner label="Загрузка команды…" />
  const myBudget = team.members.find((m) => m.userId === me)?.budget
  const can = (p: TeamDetails['permissions'][number]) => team.permissions.includes(p)
  return (
    <>
      <PageHeading
        title={team.name}
        description={
          <>
            Ваша роль — «{ROLE_LABELS[team.role]}»: {ROLE_HINTS[team.role]}.
          </>
        }
      />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
        <Card className="p-4 sm:p-6">
          <h2 className="text-sm font-medium text-slate-500">Баланс команды</h2>
          <p data-testid="team-balance" className="mt-2 text-3xl font-semibold tracking-tight whitespace-nowrap text-slate-900 tabular-nums">
            {formatRubles(team.balance)}
          </p>
          <p className="mt-2 text-sm text-slate-500">Потрачено за всё время: {formatRubles(team.spent)}</p>
          {can('topup') && (
            <Link href="/app/billing" className="mt-3 inline-block text-sm font-medium text-indigo-600 hover:text-indigo-500">
              Пополнить баланс команды
            </Link>
          )}
        </Card>
        <Card className="p-4 sm:p-6 lg:col-span-2">
          <h2 className="text-sm font-medium text-slate-500">Ваш бюджет</h2>
          {myBudget && <BudgetMeter budget={myBudget} label="Ваш бюджет в команде" className="mt-2" />}
          <p className="mt-2 text-sm text-slate-500">
            Запросы с баланса команды останавливаются, когда исчерпан ваш бюджет или бюджет ключа. Обновление — в 00:00 по Москве ({team.members.length}{' '}
            {team.members.length === 1 ? 'участник' : 'участников'}).
          </p>
          {can('team.manage') && (
            <div className="mt-4 border-t border-slate-100 pt-4">
              <Rename team={team} onDone={() => mutate()} />
            </div>
          )}
        </Card>
      </div>
      <div className="mt-6 space-y-6">
        <Members team={team} onChanged={() => mutate()} />
        {can('members.manage') && <Invitations team={team} />}
        <Residency team={team} editable={can('team.manage')} onChanged={() => mutate()} />
        <TeamKeyPolicy team={team} editable={can('team.manage')} onChanged={() => mutate()} />
        {team.role === 'owner' && <OwnerZone team={team} />}
      </div>
    </>
  )
}

export function TeamPage() {
  const { teamId } = useAccount()
  return teamId ? <TeamSettings key={teamId} teamId={teamId} /> : <TeamsOverview />
}
