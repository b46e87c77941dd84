// API keys: GET/POST /api/auth/api-keys, PATCH/DELETE /api/auth/api-keys/{id} (the {success,data} envelope).
import useSWR from 'swr'
import type { ApiKey, ApiKeyPatch, CreatedApiKey, TeamDetails } from '../../../src/wire'
import type { TeamPolicyValues } from '../../components/key-policy'
import { api } from '../../lib/api'
import { KEYS_KEY } from '../../lib/queries'

// The wire types, declared by the route schemas (src/keys/model.ts).
export type { ApiKey, ApiKeyPatch, CreatedApiKey }

/** `inference` keys call /v1; `management` keys manage keys and read the balance and activity. */
export type KeyKind = ApiKey['kind']

/** POST /api/auth/api-keys: what the form sends (an omitted policy field takes the team's default). */
export type NewKeyInput = Omit<ApiKeyPatch, 'name' | 'isActive' | 'monthlyLimit'> & { name: string; kind?: KeyKind }

/** The server refuses the 21st key with this message; the form says it up front. */
export const MAX_KEYS = 20
export const KEYS_LIMIT_MESSAGE = 'Можно создать не более 20 ключей'
export const NAME_REQUIRED_MESSAGE = 'Введите название ключа'
export const NAME_MAX_LENGTH = 100

export function useApiKeys() {
  return useSWR<ApiKey[]>(KEYS_KEY)
}

/**
 * The team's key policy, for the hint under a new team key (GET /api/teams/{id}, the same cache
 * entry the team page reads).
 */
export function useTeamKeyPolicy(teamId: string | null): TeamPolicyValues | null {
  const { data } = useSWR<TeamDetails>(teamId ? `/api/teams/${encodeURIComponent(teamId)}` : null, { dedupingInterval: 2000 })
  return data?.policy ?? null
}

const keyPath = (id: string) => `${KEYS_KEY}/${encodeURIComponent(id)}`

export const keysApi = {
  create: (input: NewKeyInput) => api.post<CreatedApiKey>(KEYS_KEY, input, { fallback: 'Ошибка создания ключа' }),
  update: (id: string, patch: ApiKeyPatch) => api.patch<ApiKey>(keyPath(id), patch, { fallback: 'Ошибка обновления ключа' }),
  remove: (id: string) => api.delete<{ ok: true }>(keyPath(id), { fallback: 'Ошибка удаления ключа' }),
}

/** The listed part of a freshly created key: the full key must never enter the SWR cache. */
export function withoutSecret(created: CreatedApiKey): ApiKey {
  const { key: _secret, ...rest } = created
  return rest
}
