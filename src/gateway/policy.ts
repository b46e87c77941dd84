// A key's policy on /v1 (issue 36), in each protocol's error shape: a management key is not an API
// key (403 management_key_not_allowed), an expired key 401 key_expired, an address outside the key's
// list 403 ip_not_allowed, a key over its rate 429 rate_limit_exceeded with Retry-After; the models
// are checked where a request's models are known (403 model_not_allowed, pipeline.ts). Every refusal
// is written to the activity log, which names the policy that refused.
import type { Db } from '../db/types'
import { ipAllowed, modelAllowed } from '../keys/policy'
import { keyRatesOf, rateHeaders } from '../keys/rates'
import { OpenAIError } from '../lib/errors'
import { now as clockNow, type Endpoint, moscowDateTimeRu, recordRefusal } from '../money'
import type { Caller } from './callers'

/** A request refused by its key's policy: the error, and the activity log's line. */
export class PolicyRefusal extends OpenAIError {}

const refusal = (status: number, message: string, type: string, code: string, extra: ConstructorParameters<typeof OpenAIError>[4] = {}) =>
  new PolicyRefusal(status, message, type, code, { shouldRetry: status === 429, ...extra })

/**
 * Admits one request of the caller (once per request: a cached caller read again is not counted
 * again): the refusals above, else the x-ratelimit-* headers of a limited key (empty without limits).
 */
export async function admit(db: Db, caller: Caller, ip: string): Promise<Record<string, string>> {
  const key = caller.apiKey
  if (!key) return {}
  if (key.kind === 'management')
    throw refusal(
      403,
      `Ключ «${key.name}» — управляющий: он управляет ключами и читает баланс и активность, но не отправляет запросы к моделям. Для /v1 создайте обычный ключ на странице API ключей.`,
      'permission_error',
      'management_key_not_allowed',
    )
  const p = key.policy
  if (p.expiresAt !== null && p.expiresAt <= clockNow())
    throw refusal(
      401,
      `Срок действия API-ключа «${key.name}» истёк ${moscowDateTimeRu(p.expiresAt)}. Продлите его или создайте новый ключ на странице API ключей.`,
      'invalid_request_error',
      'key_expired',
    )
  if (p.allowedIps !== null && !ipAllowed(p.allowedIps, ip))
    throw refusal(403, `API-ключ «${key.name}» нельзя использовать с адреса ${ip}: он разрешён только для ${p.allowedIps.join(', ')}.`, 'permission_error', 'ip_not_allowed')
  if (p.rpmLimit === null && p.tpmLimit === null) return {}
  const taken = await keyRatesOf(db).take(key.id, p)
  const headers = rateHeaders(taken.state)
  if (taken.ok) return headers
  const seconds = Math.max(1, Math.ceil(taken.retryAfterMs / 1000))
  const what = taken.refused === 'requests' ? `${p.rpmLimit} запросов в минуту` : `${p.tpmLimit} токенов в минуту`
  throw refusal(
    429,
    `Превышен лимит API-ключа «${key.name}»: ${what}. Повторите через ${seconds} с или увеличьте лимит на странице API ключей.`,
    taken.refused,
    'rate_limit_exceeded',
    {
      retryAfter: String(seconds),
      headers,
    },
  )
}

/** 403 model_not_allowed when any model a request may reach is outside the team's or the key's list. */
export function checkModels(caller: Caller, ids: readonly string[]): void {
  for (const rules of caller.modelRules)
    for (const id of ids)
      if (!modelAllowed(rules, id)) {
        const whose = caller.apiKey?.policy.allowedModels === rules ? `API-ключу «${caller.apiKey.name}»` : `команде «${caller.team?.name}»`
        throw refusal(403, `Модель ${id} не разрешена ${whose}. Разрешены: ${rules.join(', ')}.`, 'permission_error', 'model_not_allowed', { param: 'model' })
      }
}

/** Whether a model is callable by the caller (GET /v1/models lists only these). */
export const mayCall = (caller: Caller, id: string) => caller.modelRules.every((rules) => modelAllowed(rules, id))

/** When each key's last rate refusal was logged: a key hammering past its limit writes a row a second, not one per request. */
const lastRateLog = new Map<string, number>()

/** The activity log's row of a refused request (no money moves: nothing was held). */
export function logRefusal(db: Db, caller: Caller, e: PolicyRefusal, facts: { endpoint: Endpoint; model: string; stream: boolean }): void {
  const keyId = caller.apiKey?.id
  if (e.status === 429 && keyId) {
    const at = Date.now()
    if (at - (lastRateLog.get(keyId) ?? 0) < 1000) return
    if (lastRateLog.size >= 10_000) lastRateLog.clear()
    lastRateLog.set(keyId, at)
  }
  void recordRefusal(db, {
    userId: caller.userId,
    teamId: caller.teamId,
    apiKeyId: caller.apiKey?.id ?? null,
    keyName: caller.apiKey?.name ?? null,
    requestId: caller.requestId ?? null,
    error: `Отклонено политикой ключа (${e.code}): ${e.message}`,
    ...facts,
  }).catch(() => {})
}
