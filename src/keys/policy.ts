// A key's policy (issue 36): requests and tokens per minute, the models it may call, the addresses it
// may be used from and when it stops working. Here: reading what a customer sends (400 with a Russian
// message), the matches the gateway asks on every request, and whether one policy is narrower than
// another (a key narrows its team's; a member may tighten, never loosen, what an admin set).
import { isIP } from 'node:net'
import { badRequest } from '../lib/errors'

export type KeyPolicy = {
  rpmLimit: number | null
  tpmLimit: number | null
  /** Patterns: an exact model id or a prefix ending in `*` (`openai/*`; `*` alone is every model). */
  allowedModels: string[] | null
  /** IPv4/IPv6 addresses and CIDR networks, normalised (`10.0.0.0/8`). */
  allowedIps: string[] | null
  /** Epoch ms; null = never expires. */
  expiresAt: number | null
}

export type PolicyInput = { rpmLimit?: unknown; tpmLimit?: unknown; allowedModels?: unknown; allowedIps?: unknown; expiresAt?: unknown }

export const NO_POLICY: KeyPolicy = { rpmLimit: null, tpmLimit: null, allowedModels: null, allowedIps: null, expiresAt: null }

const MAX_ENTRIES = 100
const MAX_RPM = 1_000_000
const MAX_TPM = 1_000_000_000
const PATTERN = /^[a-z0-9][a-z0-9._:/@+-]*\*?$|^\*$/

export const POLICY_MESSAGES = {
  rpm: `Лимит запросов в минуту — целое число от 1 до ${MAX_RPM.toLocaleString('ru-RU')} или null (без лимита)`,
  tpm: `Лимит токенов в минуту — целое число от 1 до ${MAX_TPM.toLocaleString('ru-RU')} или null (без лимита)`,
  models: `Разрешённые модели — список до ${MAX_ENTRIES} шаблонов (например, openai/* или точный id модели) или null (все модели)`,
  pattern: (p: string) => `Некорректный шаблон модели «${p}»: укажите id модели или префикс со звёздочкой в конце, например openai/*`,
  ips: `Разрешённые IP — список до ${MAX_ENTRIES} адресов или сетей (IPv4/IPv6, CIDR) или null (любые адреса)`,
  ip: (v: string) => `Некорректный IP-адрес или сеть «${v}»: укажите, например, 203.0.113.7, 10.0.0.0/8 или 2001:db8::/32`,
  expires: 'Срок действия — дата и время в формате ISO 8601 (например, 2027-01-31T23:59:59+03:00) или null (бессрочно)',
  expiresPast: 'Срок действия ключа должен быть в будущем',
  empty: (what: string) => `Список «${what}» пуст: такой ключ не сможет ничего. Укажите хотя бы одно значение или null, чтобы снять ограничение`,
} as const

function limit(value: unknown, max: number, message: string): number | null {
  if (value === null) return null
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) throw badRequest(message)
  return value
}

function list(value: unknown, message: string, what: string, each: (s: string) => string): string[] | null {
  if (value === null) return null
  if (!Array.isArray(value) || value.length > MAX_ENTRIES || value.some((v) => typeof v !== 'string')) throw badRequest(message)
  const out = [...new Set((value as string[]).map((v) => each(v.trim())))]
  if (out.length === 0) throw badRequest(POLICY_MESSAGES.empty(what))
  return out
}

function pattern(raw: string): string {
  const p = raw.toLowerCase()
  if (p.length > 200 || !PATTERN.test(p)) throw badRequest(POLICY_MESSAGES.pattern(raw))
  return p
}

/** The fields `input` names, checked and normalised (absent = unchanged, null = no limit). */
export function parsePolicy(input: PolicyInput, at: number): Partial<KeyPolicy> {
  const out: Partial<KeyPolicy> = {}
  if (input.rpmLimit !== undefined) out.rpmLimit = limit(input.rpmLimit, MAX_RPM, POLICY_MESSAGES.rpm)
  if (input.tpmLimit !== undefined) out.tpmLimit = limit(input.tpmLimit, MAX_TPM, POLICY_MESSAGES.tpm)
  if (input.allowedModels !== undefined) out.allowedModels = list(input.allowedModels, POLICY_MESSAGES.models, 'Разрешённые модели', pattern)
  if (input.allowedIps !== undefined) out.allowedIps = list(input.allowedIps, POLICY_MESSAGES.ips, 'Разрешённые IP', (v) => formatNet(parseNet(v)))
  if (input.expiresAt !== undefined) {
    if (input.expiresAt === null) out.expiresAt = null
    else {
      const ms = typeof input.expiresAt === 'string' && /^\d{4}-\d\d-\d\d/.test(input.expiresAt) ? Date.parse(input.expiresAt) : Number.NaN
      if (!Number.isFinite(ms)) throw badRequest(POLICY_MESSAGES.expires)
      if (ms <= at) throw badRequest(POLICY_MESSAGES.expiresPast)
      out.expiresAt = ms
    }
  }
  return out
}

// ─── models ─────────────────────────────────────────────────────────────────

const matches = (p: string, id: string) => (p.endsWith('*') ? id.startsWith(p.slice(0, -1)) : id === p)

/** Whether a model id is allowed by a list of patterns (null: every model). */
export function modelAllowed(patterns: readonly string[] | null, id: string): boolean {
  if (patterns === null) return true
  const lower = id.toLowerCase()
  return patterns.some((p) => matches(p, lower))
}

/** Whether every model `inner` allows is allowed by `outer`. */
export function modelsWithin(inner: readonly string[] | null, outer: readonly string[] | null): boolean {
  if (outer === null) return true
  if (inner === null) return false
  // A pattern is covered by an outer prefix pattern whose prefix it starts with (`openai/gpt-*` by `openai/*`).
  return inner.every((p) => outer.some((o) => (o.endsWith('*') ? p.startsWith(o.slice(0, -1)) : p === o)))
}

// ─── addresses ──────────────────────────────────────────────────────────────

type Net = { v6: boolean; bits: bigint; prefix: number }

const width = (v6: boolean) => (v6 ? 128 : 32)

function v4bits(s: string): bigint | null {
  if (isIP(s) !== 4) return null
  return s.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n)
}

function v6bits(s: string): bigint | null {
  if (isIP(s) !== 6) return null
  let text = s
  let tail: bigint | null = null
  // An IPv4 tail (::ffff:10.0.0.1) is two groups.
  const dot = text.lastIndexOf(':')
  if (text.slice(dot + 1).includes('.')) {
    tail = v4bits(text.slice(dot + 1))
    text = `${text.slice(0, dot + 1)}0:0`
  }
  const [head, rest] = text.split('::') as [string, string | undefined]
  const left = head ? head.split(':') : []
  const right = rest === undefined ? [] : rest ? rest.split(':') : []
  const groups = rest === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
  let bits = groups.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g, 16)), 0n)
  if (tail !== null) bits = (bits & ~0xffffffffn) | tail
  return bits
}

/** An address as the network of its own (an IPv4-mapped IPv6 address is the IPv4 one). */
function address(raw: string): { v6: boolean; bits: bigint } | null {
  const s = raw.replace(/%.*$/, '') // a zone id says which interface, not which address
  const v4 = v4bits(s)
  if (v4 !== null) return { v6: false, bits: v4 }
  const v6 = v6bits(s)
  if (v6 === null) return null
  if (v6 >> 32n === 0xffffn) return { v6: false, bits: v6 & 0xffffffffn }
  return { v6: true, bits: v6 }
}

const mask = (v6: boolean, prefix: number) => {
  const w = BigInt(width(v6))
  return ((1n << w) - 1n) ^ ((1n << (w - BigInt(prefix))) - 1n)
}

/** An address or a CIDR network; a network's host bits are cleared (10.1.2.3/8 is 10.0.0.0/8). */
export function parseNet(raw: string): Net {
  const [host, len, extra] = raw.split('/')
  const a = host ? address(host) : null
  if (!a || extra !== undefined) throw badRequest(POLICY_MESSAGES.ip(raw))
  const prefix = len === undefined ? width(a.v6) : /^\d{1,3}$/.test(len) ? Number(len) : -1
  if (prefix < 0 || prefix > width(a.v6)) throw badRequest(POLICY_MESSAGES.ip(raw))
  return { v6: a.v6, bits: a.bits & mask(a.v6, prefix), prefix }
}

export function formatNet(n: Net): string {
  let host: string
  if (!n.v6) host = [24n, 16n, 8n, 0n].map((s) => String((n.bits >> s) & 255n)).join('.')
  else {
    const groups = Array.from({ length: 8 }, (_, i) => ((n.bits >> BigInt(112 - 16 * i)) & 0xffffn).toString(16))
    // The longest run of zero groups becomes "::" (RFC 5952).
    let best = [-1, 0]
    for (let i = 0; i < 8; ) {
      let j = i
      while (j < 8 && groups[j] === '0') j++
      if (j - i > best[1]! && j - i > 1) best = [i, j - i]
      i = j === i ? i + 1 : j
    }
    host = best[0]! < 0 ? groups.join(':') : `${groups.slice(0, best[0]).join(':')}::${groups.slice(best[0]! + best[1]!).join(':')}`
  }
  return n.prefix === width(n.v6) ? host : `${host}/${n.prefix}`
}

const contains = (outer: Net, inner: Net) => outer.v6 === inner.v6 && outer.prefix <= inner.prefix && (inner.bits & mask(outer.v6, outer.prefix)) === outer.bits

/** Whether a client address may use a key with this list (null: any address). An unknown address never may. */
export function ipAllowed(nets: readonly string[] | null, ip: string): boolean {
  if (nets === null) return true
  const a = address(ip)
  if (!a) return false
  const self: Net = { ...a, prefix: width(a.v6) }
  return nets.some((n) => contains(parseNet(n), self))
}

/** Whether every address `inner` allows is allowed by `outer`. */
export function ipsWithin(inner: readonly string[] | null, outer: readonly string[] | null): boolean {
  if (outer === null) return true
  if (inner === null) return false
  const o = outer.map(parseNet)
  return inner.every((n) => {
    const net = parseNet(n)
    return o.some((x) => contains(x, net))
  })
}

// ─── narrower or looser ─────────────────────────────────────────────────────

const limitWithin = (inner: number | null, outer: number | null) => outer === null || (inner !== null && inner <= outer)

/**
 * What in `next` is looser than `prev` (a field's Russian name), or null when `next` is the same or
 * tighter everywhere: a member may tighten a policy an admin set, not loosen it.
 */
export function loosened(next: KeyPolicy, prev: KeyPolicy): string | null {
  if (!limitWithin(next.rpmLimit, prev.rpmLimit)) return 'лимит запросов в минуту'
  if (!limitWithin(next.tpmLimit, prev.tpmLimit)) return 'лимит токенов в минуту'
  if (!modelsWithin(next.allowedModels, prev.allowedModels)) return 'список разрешённых моделей'
  if (!ipsWithin(next.allowedIps, prev.allowedIps)) return 'список разрешённых IP'
  if (!limitWithin(next.expiresAt, prev.expiresAt)) return 'срок действия'
  return null
}

/** Whether the policy limits anything at all. */
export const hasPolicy = (p: KeyPolicy) => p.rpmLimit !== null || p.tpmLimit !== null || p.allowedModels !== null || p.allowedIps !== null || p.expiresAt !== null
