import type { Db } from '../db/client'
import { newId, randomToken, sha256 } from '../lib/crypto'
import { badRequest, notFound } from '../lib/errors'
import { microsToRub, rubToMicros } from '../lib/money'
import type { ApiKeyRow } from './schema'
import { keysStore, monthStart } from './store'

export const KEY_PREFIX = 'sk-gw-'
/** Shown in lists: "sk-gw-" plus 8 characters — enough to tell keys apart, useless to an attacker. */
const SHOWN_PREFIX_LENGTH = KEY_PREFIX.length + 8
export const MAX_KEYS_PER_USER = 20
const MAX_NAME = 100
const MAX_LIMIT_RUB = 10_000_000

export const KEY_MESSAGES = {
  name: 'Введите название ключа',
  nameTooLong: `Название ключа не длиннее ${MAX_NAME} символов`,
  tooMany: `Можно создать не более ${MAX_KEYS_PER_USER} ключей`,
  notFound: 'Ключ не найден',
  limit: 'Лимит должен быть положительным числом',
  limitTooBig: 'Лимит не может превышать 10 000 000 ₽',
} as const

function cleanName(name: string) {
  const trimmed = name.trim()
  if (!trimmed) throw badRequest(KEY_MESSAGES.name)
  if (trimmed.length > MAX_NAME) throw badRequest(KEY_MESSAGES.nameTooLong)
  return trimmed
}

export function keysService(db: Db) {
  const store = keysStore(db)

  const toApi = (k: ApiKeyRow, spentMicros: number) => ({
    id: k.id,
    name: k.name,
    keyPrefix: k.keyPrefix,
    isActive: k.isActive,
    monthlyLimit: k.monthlyLimitMicros === null ? null : microsToRub(k.monthlyLimitMicros),
    monthSpent: microsToRub(spentMicros),
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  })

  const withSpend = async (k: ApiKeyRow) => toApi(k, (await store.spentSince([k.id], monthStart())).get(k.id) ?? 0)

  async function owned(userId: string, id: string) {
    const key = await store.byIdForUser(id, userId)
    if (!key) throw notFound(KEY_MESSAGES.notFound)
    return key
  }

  return {
    async list(userId: string) {
      const keys = await store.listForUser(userId)
      const spent = await store.spentSince(
        keys.map((k) => k.id),
        monthStart(),
      )
      return keys.map((k) => toApi(k, spent.get(k.id) ?? 0))
    },

    async create(userId: string, rawName: string) {
      const name = cleanName(rawName)
      if ((await store.countForUser(userId)) >= MAX_KEYS_PER_USER) throw badRequest(KEY_MESSAGES.tooMany)
      const key = `${KEY_PREFIX}${randomToken(30)}` // 240 bits of entropy
      const row = { id: newId(), userId, name, keyPrefix: key.slice(0, SHOWN_PREFIX_LENGTH), keyHash: sha256(key), isActive: true, createdAt: new Date() }
      await store.insert(row)
      return { ...toApi({ ...row, monthlyLimitMicros: null, lastUsedAt: null }, 0), key }
    },

    async update(userId: string, id: string, patch: { name?: string; isActive?: boolean; monthlyLimit?: number | null }) {
      await owned(userId, id)
      const set: Parameters<typeof store.update>[1] = {}
      if (patch.name !== undefined) set.name = cleanName(patch.name)
      if (patch.isActive !== undefined) set.isActive = patch.isActive
      if (patch.monthlyLimit !== undefined) {
        const limit = patch.monthlyLimit
        // Range first: a huge negative or positive number must not reach the micro-ruble conversion,
        // which refuses amounts beyond the safe-integer range with a RangeError (a 500).
        if (limit !== null && (!Number.isFinite(limit) || limit <= 0)) throw badRequest(KEY_MESSAGES.limit)
        if (limit !== null && limit > MAX_LIMIT_RUB) throw badRequest(KEY_MESSAGES.limitTooBig)
        // Checked after rounding to micro-rubles: a limit that rounds to nothing would block the key.
        const micros = limit === null ? null : rubToMicros(limit)
        if (micros !== null && micros < 1) throw badRequest(KEY_MESSAGES.limit)
        set.monthlyLimitMicros = micros
      }
      // Deleted meanwhile (another tab, another instance): the same 404 as a key that never was.
      const updated = Object.keys(set).length ? await store.update(id, set) : await owned(userId, id)
      if (!updated) throw notFound(KEY_MESSAGES.notFound)
      return withSpend(updated)
    },

    async remove(userId: string, id: string) {
      await owned(userId, id)
      await store.delete(id)
    },

    spentThisMonthMicros: async (keyId: string) => (await store.spentSince([keyId], monthStart())).get(keyId) ?? 0,
  }
}

export type KeysService = ReturnType<typeof keysService>
