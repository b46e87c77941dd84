// API keys: GET/POST /api/auth/api-keys, PATCH/DELETE /api/auth/api-keys/{id} (the {success,data} envelope).
import useSWR from 'swr'
import type { ApiKey, ApiKeyPatch, CreatedApiKey } from '../../../src/wire'
import { api } from '../../lib/api'

// The wire types, declared by the route schemas (src/keys/model.ts).
export type { ApiKey, ApiKeyPatch, CreatedApiKey }

export const KEYS_KEY = '/api/auth/api-keys'
/** The server refuses the 21st key with this message; the form says it up front. */
export const MAX_KEYS = 20
export const KEYS_LIMIT_MESSAGE = 'Можно создать не более 20 ключей'
export const NAME_REQUIRED_MESSAGE = 'Введите название ключа'
export const LIMIT_INVALID_MESSAGE = 'Лимит должен быть положительным числом'
export const NAME_MAX_LENGTH = 100

export function useApiKeys() {
  return useSWR<ApiKey[]>(KEYS_KEY)
}

const keyPath = (id: string) => `${KEYS_KEY}/${encodeURIComponent(id)}`

export const keysApi = {
  create: (name: string) => api.post<CreatedApiKey>(KEYS_KEY, { name }, { fallback: 'Ошибка создания ключа' }),
  update: (id: string, patch: ApiKeyPatch) => api.patch<ApiKey>(keyPath(id), patch, { fallback: 'Ошибка обновления ключа' }),
  remove: (id: string) => api.delete<{ ok: true }>(keyPath(id), { fallback: 'Ошибка удаления ключа' }),
}

/** The listed part of a freshly created key: the full key must never enter the SWR cache. */
export function withoutSecret(created: CreatedApiKey): ApiKey {
  const { key: _secret, ...rest } = created
  return rest
}

/**
 * Parses the limit field: '' → null (no limit); '500', '99,5' → a number; anything else, zero
 * or negative → undefined (invalid).
 */
export function parseLimitInput(raw: string): number | null | undefined {
  const text = raw.trim().replace(/\s/g, '').replace(',', '.')
  if (text === '') return null
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined
  const value = Number(text)
  return Number.isFinite(value) && value > 0 ? value : undefined
}

const limitFormats = {
  whole: new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 0 }),
  kopecks: new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  fine: new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 6, maximumFractionDigits: 6 }),
}

/** A limit as people set it: '500 ₽', '1 000 ₽', '99,50 ₽'. */
export function formatLimit(rubles: number): string {
  const whole = Number.isInteger(rubles)
  return `${(whole ? limitFormats.whole : limitFormats.kopecks).format(rubles)} ₽`
}

/** Money spent: two decimals, but a few hundredths of a kopeck are not rounded away to '0,00 ₽'. */
export function formatSpend(rubles: number): string {
  const n = Number.isFinite(rubles) ? rubles : 0
  if (n > 0 && n < 0.01) return `${limitFormats.fine.format(n)} ₽`
  return `${limitFormats.kopecks.format(n)} ₽`
}
