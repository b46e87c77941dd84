// A key's policy in the terminal (issue 36): the option parsers of `gw keys create` and `gw keys
// update` (their errors are usage errors, before any request) and the one-line summary `gw keys
// list` prints under its table. The server validates model patterns and IP rules itself and
// answers in Russian; here only what a person types wrong most: numbers and dates.
import { InvalidArgumentError } from 'commander'
import { MSK_OFFSET_MS, moscowMs } from '../../src/content/moscow'
import type { ApiKey } from './api'
import { integer, moscowDay, when } from './format'

export const KEY_KINDS = ['inference', 'management'] as const satisfies readonly ApiKey['kind'][]
export type KeyKind = ApiKey['kind']

/** The policy fields of a key as the wire carries them (src/keys/model.ts). */
export type KeyPolicy = Pick<ApiKey, 'kind' | 'rpmLimit' | 'tpmLimit' | 'allowedModels' | 'allowedIps' | 'expiresAt' | 'expired' | 'appOrigin'>

/**
 * `none` in `gw keys update`: the limit is cleared (null on the wire). The parsers return the word
 * itself, not null: commander turns an option's null into ''.
 */
export const NONE = 'none'
export type None = typeof NONE
const isNone = (value: string) => value.trim().toLowerCase() === NONE

// ─── parsers ───────────────────────────────────────────────────────────────────────────────────

// The server's ceilings (src/keys/policy.ts MAX_RPM, MAX_TPM).
export const MAX_RPM = 1_000_000
export const MAX_TPM = 1_000_000_000

/**
 * A per-minute limit up to `max`: a whole number above zero ('100 000' and '100_000' read as
 * 100000); `clearable`: or `none` (no limit).
 */
function perMinute(max: number, clearable: boolean) {
  const message = `нужно целое число от 1 до ${integer(max)}${clearable ? ', или none — снять ограничение' : ''}`
  return (value: string): number | None => {
    if (clearable && isNone(value)) return NONE
    const text = value.trim().replace(/[\s_\u00a0\u202f]/g, '')
    const n = /^\d+$/.test(text) ? Number(text) : Number.NaN
    if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new InvalidArgumentError(message)
    return n
  }
}

export const rpm = perMinute(MAX_RPM, false) as (value: string) => number
export const tpm = perMinute(MAX_TPM, false) as (value: string) => number
export const rpmOrNone = perMinute(MAX_RPM, true)
export const tpmOrNone = perMinute(MAX_TPM, true)

const items = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)

/**
 * A comma-separated list; the option may be repeated and the lists add up. `allowNone`: the word
 * `none` alone clears the list, and cannot be mixed with items.
 */
export function commaList(what: string, allowNone = false) {
  return (value: string, previous: string[] | None | undefined): string[] | None => {
    if (allowNone && isNone(value)) {
      if (previous?.length) throw new InvalidArgumentError(`none нельзя сочетать с другими значениями (${what})`)
      return NONE
    }
    if (previous === NONE) throw new InvalidArgumentError(`none нельзя сочетать с другими значениями (${what})`)
    const next = items(value)
    if (next.length === 0) throw new InvalidArgumentError(`пустой список (${what}); значения через запятую`)
    return [...new Set([...(previous ?? []), ...next])]
  }
}

const EXPIRES_ERROR = 'дата в формате ГГГГ-ММ-ДД (действует до конца этого дня по Москве) или время ISO 8601, например 2027-01-31T18:00:00+03:00'
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/
// An ISO time; without a zone it is Moscow's, as every time the CLI prints.
const ISO = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i

/** Whether a YYYY-MM-DD names a real day (2027-02-30 does not). */
function realDay(day: string): boolean {
  const m = day.match(DAY)
  if (!m) return false
  const at = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return at.toISOString().slice(0, 10) === day
}

/**
 * When the key stops working, as an ISO instant: a day (YYYY-MM-DD) means the end of that day in
 * Moscow (23:59:59 +03:00); a full ISO time is taken as it is (Moscow's when it names no zone).
 * `now`: the time a past expiry is refused against.
 */
export function expiry(value: string, now = Date.now()): string {
  const text = value.trim()
  let at = Number.NaN
  if (DAY.test(text)) {
    if (realDay(text)) at = moscowMs(text, '23:59:59')
  } else {
    const m = text.match(ISO)
    if (m && realDay(m[1]!) && Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4] ?? 0) < 60) at = Date.parse(m[5] ? text.toUpperCase() : `${text}+03:00`)
  }
  if (!Number.isFinite(at)) throw new InvalidArgumentError(EXPIRES_ERROR)
  if (at <= now) throw new InvalidArgumentError(`срок действия уже прошёл (${when(new Date(at).toISOString())} МСК); укажите дату в будущем`)
  return new Date(at).toISOString()
}

/** The same, or `none` (the key never expires). */
export const expiryOrNone = (value: string): string => (isNone(value) ? NONE : expiry(value))

// ─── display ───────────────────────────────────────────────────────────────────────────────────

export const KIND_LABELS: Record<KeyKind, string> = { inference: 'для запросов', management: 'управляющий' }

/** An expiry for people: the day when it is the end of a Moscow day, else the day and Moscow time. */
export function expiryText(iso: string): string {
  const msk = new Date(Date.parse(iso) + MSK_OFFSET_MS)
  const endOfDay = msk.getUTCHours() === 23 && msk.getUTCMinutes() === 59
  return endOfDay ? moscowDay(iso) : `${when(iso)} МСК`
}

/** The policy in one line: '60 запр/мин · 100 000 ток/мин · модели: openai/* · IP: 10.0.0.0/8 · до 31.01.2027'. */
export function policyParts(k: KeyPolicy): string[] {
  return [
    k.rpmLimit === null ? null : `${integer(k.rpmLimit)} запр/мин`,
    k.tpmLimit === null ? null : `${integer(k.tpmLimit)} ток/мин`,
    k.allowedModels ? (k.allowedModels.length ? `модели: ${k.allowedModels.join(', ')}` : 'модели: никакие') : null,
    k.allowedIps ? (k.allowedIps.length ? `IP: ${k.allowedIps.join(', ')}` : 'IP: никакие') : null,
    k.expiresAt ? `${k.expired ? 'истёк' : 'до'} ${expiryText(k.expiresAt)}` : null,
  ].filter((p): p is string => p !== null)
}

export const policySummary = (k: KeyPolicy) => policyParts(k).join(' · ') || 'без ограничений'

/** What to send: only the options given; none is sent as null, which clears. */
export type PolicyOptions = {
  rpm?: number | None
  tpm?: number | None
  models?: string[] | None
  ips?: string[] | None
  expires?: string
}

export function policyBody(o: PolicyOptions): Partial<Pick<KeyPolicy, 'rpmLimit' | 'tpmLimit' | 'allowedModels' | 'allowedIps' | 'expiresAt'>> {
  const value = <T>(v: T | None): T | null => (v === NONE ? null : v)
  const body: ReturnType<typeof policyBody> = {}
  if (o.rpm !== undefined) body.rpmLimit = value(o.rpm)
  if (o.tpm !== undefined) body.tpmLimit = value(o.tpm)
  if (o.models !== undefined) body.allowedModels = value(o.models)
  if (o.ips !== undefined) body.allowedIps = value(o.ips)
  if (o.expires !== undefined) body.expiresAt = value(o.expires)
  return body
}
