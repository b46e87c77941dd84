// The account the app acts in and what the signed-in user may do there: the personal account
// (everything), or a team with the user's role (GET /api/teams lists each team with the role's
// permissions; the server checks them again on every call). Screens hide what the role cannot use.
import useSWR from 'swr'
import type { TeamPermission, TeamRole, TeamSummary } from '../../src/wire'
import { useAccountContext } from '../stores/account'
import { useSession } from '../stores/session'

export const TEAMS_KEY = '/api/teams'

export const ROLE_LABELS: Record<TeamRole, string> = { owner: 'Владелец', admin: 'Администратор', billing: 'Бухгалтер', member: 'Участник' }

/** The teams the user belongs to (the context switcher lists them). */
export function useTeams() {
  const isAuthenticated = useSession((s) => s.isAuthenticated)
  return useSWR<TeamSummary[]>(isAuthenticated ? TEAMS_KEY : null)
}

export interface Account {
  /** null: the personal account. */
  teamId: string | null
  /** The current team, once the list has loaded. */
  team: TeamSummary | null
  role: TeamRole | null
  /** The team list has not loaded yet (a team's permissions are unknown meanwhile: nothing is allowed). */
  loading: boolean
  /** Whether the user may do it in this account: always in the personal one. */
  can: (permission: TeamPermission) => boolean
}

export function useAccount(): Account {
  const teamId = useAccountContext((s) => s.teamId)
  const { data: teams } = useTeams()
  const team = teamId ? (teams?.find((t) => t.id === teamId) ?? null) : null
  const permissions = new Set(team?.permissions ?? [])
  return {
    teamId,
    team,
    role: team?.role ?? null,
    loading: teamId !== null && !teams,
    can: (permission) => teamId === null || permissions.has(permission),
  }
}
