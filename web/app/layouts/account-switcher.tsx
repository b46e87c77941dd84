// The context switcher: «Личный аккаунт» and each team the user belongs to. The choice is kept
// (stores/account.ts) and every call then acts in that account; creating a team switches to it.
import { useEffect, useId, useState } from 'react'
import { Select } from '../../components/select'
import { CreateTeamDialog } from '../../features/teams/create-team-dialog'
import { ROLE_LABELS, useAccount, useTeams } from '../../lib/account'
import { cn } from '../../lib/cn'
import { useAccountContext } from '../../stores/account'
import { toast } from '../../stores/toasts'

export const PERSONAL_LABEL = 'Личный аккаунт'
const NEW_TEAM = '__new__'

/** A remembered team the user is no longer in (removed, or the team deleted): back to the personal account. */
export function useStaleTeamReset() {
  const { data: teams } = useTeams()
  const teamId = useAccountContext((s) => s.teamId)
  const setTeam = useAccountContext((s) => s.setTeam)
  useEffect(() => {
    if (teamId && teams && !teams.some((t) => t.id === teamId)) {
      setTeam(null)
      toast.info('Вы больше не состоите в этой команде: открыт личный аккаунт')
    }
  }, [teamId, teams, setTeam])
}

export function AccountSwitcher({ compact = false, className }: { compact?: boolean; className?: string }) {
  const id = useId()
  const { data: teams } = useTeams()
  const { teamId } = useAccount()
  const setTeam = useAccountContext((s) => s.setTeam)
  const [creating, setCreating] = useState(false)

  return (
    <div className={cn('min-w-0', className)}>
      <label htmlFor={id} className={compact ? 'sr-only' : 'mb-1 block px-1 text-xs font-medium text-slate-500'}>
        Аккаунт
      </label>
      <Select
        id={id}
        data-testid="account-switcher"
        value={teamId ?? ''}
        onChange={(e) => {
          if (e.target.value === NEW_TEAM) setCreating(true)
          else setTeam(e.target.value || null)
        }}
        className={cn('text-sm', compact && 'h-9')}
      >
        <option value="">{PERSONAL_LABEL}</option>
        {(teams ?? []).map((t) => (
          <option key={t.id} value={t.id}>
            {compact ? t.name : `${t.name} · ${ROLE_LABELS[t.role]}`}
          </option>
        ))}
        {/* a remembered team the list has not confirmed yet keeps its place */}
        {teamId && !teams?.some((t) => t.id === teamId) && <option value={teamId}>Команда…</option>}
        <option value={NEW_TEAM}>+ Создать команду</option>
      </Select>
      <CreateTeamDialog open={creating} onClose={() => setCreating(false)} />
    </div>
  )
}
