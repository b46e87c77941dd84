// Teams: /api/teams and below ({success,data} envelope). The routes check membership and role on
// the server; these calls name the team in the path, so they work in any context.
import useSWR from 'swr'
import type {
  BudgetInput,
  InvitationPreview,
  TeamAuditEntry,
  TeamDetails,
  TeamInvitation,
  TeamMember,
  TeamRole,
  TeamSummary,
  TeamWebhook,
  TeamWebhookSecret,
} from '../../../src/wire'
import type { TeamPolicyValues } from '../../components/key-policy'
import { api } from '../../lib/api'

export type { BudgetInput, InvitationPreview, TeamAuditEntry, TeamDetails, TeamInvitation, TeamMember, TeamRole, TeamSummary, TeamWebhook }

const team = (id: string) => `/api/teams/${encodeURIComponent(id)}`
export const teamKey = (id: string) => team(id)
export const invitationsKey = (id: string) => `${team(id)}/invitations`
export const auditKey = (id: string, limit = 100) => `${team(id)}/audit?limit=${limit}`
export const webhookKey = (id: string) => `${team(id)}/webhook`

export const useTeam = (id: string | null) => useSWR<TeamDetails>(id ? teamKey(id) : null, { dedupingInterval: 2000 })
export const useInvitations = (id: string | null, allowed: boolean) => useSWR<TeamInvitation[]>(id && allowed ? invitationsKey(id) : null, { dedupingInterval: 2000 })

/** Roles an invitation or a role change may give (ownership passes only by transfer). */
export const ASSIGNABLE_ROLES: Exclude<TeamRole, 'owner'>[] = ['admin', 'billing', 'member']

export const ROLE_HINTS: Record<TeamRole, string> = {
  owner: 'всё, включая передачу владения и удаление команды',
  admin: 'участники, бюджеты, все ключи, пополнения, настройки, журнал',
  billing: 'пополнения, документы и вся статистика; без ключей и Playground',
  member: 'свои ключи и Playground в пределах бюджета; своя статистика',
}

export const teamsApi = {
  create: (name: string) => api.post<TeamSummary>('/api/teams', { name }, { fallback: 'Не удалось создать команду' }),
  rename: (id: string, name: string) => api.patch<TeamSummary>(team(id), { name }, { fallback: 'Не удалось переименовать команду' }),
  setResidency: (id: string, residency: 'any' | 'ru') => api.patch<TeamSummary>(team(id), { residency }, { fallback: 'Не удалось сохранить хранение данных' }),
  setPolicy: (id: string, policy: TeamPolicyValues) => api.patch<TeamDetails['policy']>(`${team(id)}/policy`, policy, { fallback: 'Не удалось сохранить политику ключей' }),
  remove: (id: string) => api.delete<{ id: string; deleted: true }>(team(id), { fallback: 'Не удалось удалить команду' }),
  transfer: (id: string, userId: string) => api.post<{ ok: true }>(`${team(id)}/transfer`, { userId }, { fallback: 'Не удалось передать владение' }),
  invite: (id: string, email: string, role: TeamRole) => api.post<TeamInvitation>(invitationsKey(id), { email, role }, { fallback: 'Не удалось отправить приглашение' }),
  revokeInvitation: (id: string, invitationId: string) =>
    api.delete<{ ok: true }>(`${invitationsKey(id)}/${encodeURIComponent(invitationId)}`, { fallback: 'Не удалось отозвать приглашение' }),
  updateMember: (id: string, userId: string, patch: { role?: TeamRole; budget?: BudgetInput }) =>
    api.patch<TeamMember>(`${team(id)}/members/${encodeURIComponent(userId)}`, patch, { fallback: 'Не удалось сохранить изменения' }),
  removeMember: (id: string, userId: string) =>
    api.delete<{ ok: true; revokedKeys: number }>(`${team(id)}/members/${encodeURIComponent(userId)}`, { fallback: 'Не удалось исключить участника' }),
  lookupInvitation: (token: string) => api.post<InvitationPreview>('/api/teams/invitations/lookup', { token }),
  acceptInvitation: (token: string) => api.post<{ team: TeamSummary }>('/api/teams/invitations/accept', { token }, { fallback: 'Не удалось принять приглашение' }),
  setWebhook: (id: string, url: string) => api.put<TeamWebhookSecret>(webhookKey(id), { url }, { fallback: 'Не удалось сохранить вебхук' }),
  deleteWebhook: (id: string) => api.delete<{ ok: true }>(webhookKey(id), { fallback: 'Не удалось отключить вебхук' }),
  testWebhook: (id: string) => api.post<{ deliveryId: string | null }>(`${webhookKey(id)}/test`, undefined, { fallback: 'Не удалось отправить тестовое событие' }),
}
