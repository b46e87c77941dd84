// Team webhooks: alerts as JSON POSTs signed with HMAC-SHA256 over the raw body with the team's
// secret (`X-Signature: sha256=<hex>`), each with a delivery id (header and body) receivers
// de-duplicate by. Deliveries wait in an outbox table until the receiver answers 2xx, retried with
// back-off; they survive restarts, and with several instances each row is claimed by one of them
// at a time (a conditional UPDATE). Addresses on private, loopback or link-local networks are
// refused — when set and again before every delivery — unless ALLOW_PRIVATE_WEBHOOKS=true.
import { createHmac } from 'node:crypto'
import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import { and, asc, eq, isNull, lt, lte, or, sql } from 'drizzle-orm'
import { INSTANCE_ID } from '../db/instance'
import { noteDatabaseFailure } from '../db/outage'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import { badRequest } from '../lib/errors'
import { webhookDeliveries as deliveries, teams } from './schema'

/** Waits before the 2nd, 3rd… attempt; after the last one the delivery is marked failed. */
export const RETRY_DELAYS_MS = [2_000, 10_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 6 * 3600_000]
const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1
const CLAIM_MS = 30_000
const TIMEOUT_MS = 10_000
const POLL_MS = 1_000
const BATCH = 10

const PRIVATE_V4 = new BlockList()
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation (TEST-NET-1..3): never a real receiver
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE_V4.addSubnet(net, bits, 'ipv4')
// Refused whole. ::/96 holds ::, ::1 and the deprecated IPv4-compatible form (::7f00:1 is ::127.0.0.1);
// ::ffff:0:0:0/96 is the IPv4-translated form (SIIT), never a public address; 64:ff9b:1::/48 is the
// local-use NAT64 prefix, whose IPv4 sits where the local network puts it, so it cannot be read here.
const PRIVATE_V6 = new BlockList()
for (const [net, bits] of [
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10], // site-local (deprecated, still routed inside some networks)
  ['ff00::', 8],
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['2001::', 32], // Teredo: a tunnel to whatever IPv4 it carries (obfuscated), never a webhook receiver
] as const)
  PRIVATE_V6.addSubnet(net, bits, 'ipv6')

/** An IPv6 address as its eight 16-bit groups (a trailing dotted IPv4 and a zone allowed), or null. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip.replace(/%.*$/, '')
  const dotted = text.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/)
  if (dotted) {
    const [a, b, c, d] = dotted[2]!.split('.').map(Number) as [number, number, number, number]
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail, extra] = text.split('::')
  if (extra !== undefined) return null
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => Number.parseInt(g, 16)) : [])
  const left = part(head)
  const right = part(tail)
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right]
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null
}

/**
 * The IPv4 address an IPv6 one carries where the carrier is a way to reach it: IPv4-mapped
 * (::ffff:a.b.c.d), NAT64's well-known prefix (64:ff9b::/96) and 6to4 (2002::/16, the IPv4 in bits
 * 16–47). These are judged by their IPv4 rather than refused whole: a DNS64 resolver answers every
 * IPv4-only host with a 64:ff9b:: address, and public 6to4 hosts exist.
 */
function embeddedIPv4(g: number[]): string | null {
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6]!, g[7]!)
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!)
  return null
}

/**
 * Loopback, private, link-local, site-local, CGNAT, multicast, documentation and reserved addresses,
 * and IPv6 forms that carry one of them (IPv4-mapped, -compatible, -translated, NAT64, 6to4).
 */
export const isPrivateAddress = (ip: string) => {
  const family = isIP(ip)
  if (family === 0) return true
  if (family === 4) return PRIVATE_V4.check(ip, 'ipv4')
  const bare = ip.replace(/%.*$/, '')
  if (PRIVATE_V6.check(bare, 'ipv6')) return true
  // An address that cannot be read is refused: we cannot tell where it leads.
  const groups = ipv6Groups(bare)
  if (!groups) return true
  const carried = embeddedIPv4(groups)
  return carried !== null && PRIVATE_V4.check(carried, 'ipv4')
}

const WEBHOOK_MESSAGES = {
  url: 'Укажите адрес вебхука: http(s)://…',
  private: 'Адрес вебхука ведёт в частную, локальную или служебную сеть: такие адреса запрещены',
  unresolved: 'Не удалось найти адрес вебхука в DNS',
} as const

type Resolve = (host: string) => Promise<{ address: string }[]>
const resolveAll: Resolve = (host) => lookup(host, { all: true })

/**
 * Why the address may not receive webhooks, or null; resolves the name (every address must be
 * public). Asked when the address is saved and again before every delivery; `resolve` is DNS
 * (tests give their own answers).
 */
export async function refusal(url: URL, allowPrivate: boolean, resolve: Resolve = resolveAll): Promise<string | null> {
  if (allowPrivate) return null
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host)) return isPrivateAddress(host) ? WEBHOOK_MESSAGES.private : null
  if (host === 'localhost' || host.endsWith('.localhost')) return WEBHOOK_MESSAGES.private
  let found: { address: string }[]
  try {
    found = await resolve(host)
  } catch {
    return WEBHOOK_MESSAGES.unresolved
  }
  if (found.length === 0) return WEBHOOK_MESSAGES.unresolved
  return found.some((a) => isPrivateAddress(a.address)) ? WEBHOOK_MESSAGES.private : null
}

/** The address as it will be stored, or a 400 with the reason. */
export async function checkWebhookUrl(raw: unknown, allowPrivate: boolean): Promise<string> {
  if (typeof raw !== 'string' || raw.trim().length === 0 || raw.length > 2000) throw badRequest(WEBHOOK_MESSAGES.url)
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw badRequest(WEBHOOK_MESSAGES.url)
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password) throw badRequest(WEBHOOK_MESSAGES.url)
  const why = await refusal(url, allowPrivate)
  if (why) throw badRequest(why)
  return url.toString()
}

/** `sha256=<hex>` of the raw body with the team's secret. */
export const signature = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`

export function webhookDeliveries(db: Db) {
  return {
    /** Queues an event for the team's webhook (nothing when it has none); answers the delivery id. */
    async enqueue(teamId: string, event: string, data: Record<string, unknown>): Promise<string | null> {
      const [team] = await db.select({ url: teams.webhookUrl }).from(teams).where(eq(teams.id, teamId)).limit(1)
      if (!team?.url) return null
      const id = newId()
      const now = Date.now()
      const body = JSON.stringify({ id, event, created_at: new Date(now).toISOString(), data })
      await write(db, (q) => q.insert(deliveries).values({ id, teamId, event, body, status: 'pending', attempts: 0, nextAttemptAt: now, createdAt: now }))
      kickWorker()
      return id
    },
  }
}

/** Wakes the worker of this process (set while it runs). */
let kickWorker = () => {}

/**
 * Delivers due webhooks until stopped: every second, and at once when an event is queued. Each
 * delivery is claimed with a conditional UPDATE (the claim lapses after 30 s if this instance dies),
 * so several instances never send the same attempt twice.
 */
export function startWebhookWorker(db: Db, allowPrivate: boolean, log = (m: string) => console.warn(m)): () => void {
  let running = false
  let again = false

  async function claim(now: number) {
    const due = await db
      .select({ id: deliveries.id })
      .from(deliveries)
      .where(and(eq(deliveries.status, 'pending'), lte(deliveries.nextAttemptAt, now), or(isNull(deliveries.claimedUntil), lt(deliveries.claimedUntil, now))))
      .orderBy(asc(deliveries.nextAttemptAt))
      .limit(BATCH)
    const claimed: { id: string; teamId: string; event: string; body: string; attempts: number }[] = []
    for (const { id } of due) {
      const [row] = await write(db, (q) =>
        q
          .update(deliveries)
          .set({ claimedUntil: now + CLAIM_MS, attempts: sql`${deliveries.attempts} + 1` })
          .where(and(eq(deliveries.id, id), eq(deliveries.status, 'pending'), or(isNull(deliveries.claimedUntil), lt(deliveries.claimedUntil, now))))
          .returning({ id: deliveries.id, teamId: deliveries.teamId, event: deliveries.event, body: deliveries.body, attempts: deliveries.attempts }),
      )
      if (row) claimed.push(row)
    }
    return claimed
  }

  async function deliver(d: { id: string; teamId: string; event: string; body: string; attempts: number }) {
    const [team] = await db.select({ url: teams.webhookUrl, secret: teams.webhookSecret }).from(teams).where(eq(teams.id, d.teamId)).limit(1)
    let status: number | null = null
    let error: string | null = null
    if (!team?.url || !team.secret) error = 'Вебхук команды отключён'
    else {
      const url = new URL(team.url)
      error = await refusal(url, allowPrivate)
      if (!error)
        try {
          const res = await fetch(url, {
            method: 'POST',
            body: d.body,
            redirect: 'manual',
            signal: AbortSignal.timeout(TIMEOUT_MS),
            headers: {
              'content-type': 'application/json',
              'user-agent': 'AI-Gateway-Webhooks/1',
              'x-signature': signature(team.secret, d.body),
              'x-webhook-id': d.id,
              'x-webhook-event': d.event,
            },
          })
          status = res.status
          await res.body?.cancel().catch(() => {})
          if (!res.ok) error = `HTTP ${res.status}`
        } catch (e) {
          error = (e as Error).name === 'TimeoutError' ? 'нет ответа за 10 с' : `ошибка соединения: ${(e as Error).message}`.slice(0, 300)
        }
    }
    const now = Date.now()
    const final = !team?.url || d.attempts >= MAX_ATTEMPTS
    await write(db, (q) =>
      q
        .update(deliveries)
        .set(
          error === null
            ? { status: 'delivered', deliveredAt: now, lastStatus: status, lastError: null, claimedUntil: null }
            : { status: final ? 'failed' : 'pending', nextAttemptAt: now + (RETRY_DELAYS_MS[d.attempts - 1] ?? 0), lastStatus: status, lastError: error, claimedUntil: null },
        )
        .where(eq(deliveries.id, d.id)),
    )
    if (error !== null) log(`[webhooks] delivery ${d.id} (${d.event}) to team ${d.teamId}, attempt ${d.attempts}: ${error}${final ? '; giving up' : ''}`)
  }

  async function tick() {
    if (running) {
      again = true
      return
    }
    running = true
    try {
      do {
        again = false
        const batch = await claim(Date.now())
        await Promise.all(
          batch.map((d) =>
            deliver(d).catch((e) => {
              if (!noteDatabaseFailure(e)) log(`[webhooks] delivery ${d.id} failed: ${(e as Error).message}`)
            }),
          ),
        )
        if (batch.length === BATCH) again = true
      } while (again)
    } catch (e) {
      // The database not answering is logged once for the whole outage (db/outage.ts), not every poll with its SQL.
      if (!noteDatabaseFailure(e)) log(`[webhooks] ${INSTANCE_ID}: ${(e as Error).message}`)
    } finally {
      running = false
    }
  }

  kickWorker = () => void tick()
  const timer = setInterval(() => void tick(), POLL_MS)
  ;(timer as unknown as { unref(): void }).unref()
  void tick()
  return () => {
    clearInterval(timer)
    kickWorker = () => {}
  }
}
