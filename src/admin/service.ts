// The operator's cockpit: platform statistics, the user list, balance adjustments and deletion.

import type { AuthService, PublicUser } from '../auth/service'
import { billingService } from '../billing/service'
import type { BlogService } from '../blog/service'
import type { RateProvider } from '../catalog/rate'
import { overDeductionMessage } from '../content/ledger'
import { tx } from '../db/tx'
import type { Db } from '../db/types'
import type { KeysService } from '../keys/service'
import { toDecimalString } from '../lib/decimal'
import { badRequest, notFound } from '../lib/errors'
import { formatSignedMicros, microsToRub, rubToMicros } from '../lib/money'
import { now as clockNow, InsufficientFundsError, moscowDay, moscowDayStart, periodStart, postMovement, rearmLowBalance } from '../money'
import { auditIn, type TeamsService } from '../teams/service'
import type { UpstreamClient } from '../upstream/client'
import { upstreamLabel } from '../upstream/names'
import { adminStore } from './store'

export type AdminDeps = { db: Db; auth: AuthService; upstream: UpstreamClient; rates: RateProvider; blog: BlogService; teams: TeamsService; keys: KeysService }

export const ADMIN_MESSAGES = {
  userNotFound: 'Пользователь не найден',
  teamNotFound: 'Команда не найдена',
  cannotDeleteSelf: 'Нельзя удалить собственный аккаунт',
  amountNotNumber: 'Сумма должна быть числом',
  amountZero: 'Сумма не может быть нулевой',
  amountTooLarge: 'Сумма корректировки — не больше 1 000 000 ₽ за раз',
  descriptionTooLong: 'Описание — не длиннее 200 символов',
  descriptionNotText: 'Описание должно быть строкой',
} as const

export const MAX_ADJUSTMENT_RUB = 1_000_000
/** The spec's threshold: a limit this large means the upstream key has no cap (pay as you go). */
export const UNLIMITED_LIMIT_USD = 999_999
const DEFAULT_DESCRIPTION = 'Корректировка баланса администратором'
const USER_PAGE_TRANSACTIONS = 50
const USER_PAGE_REQUESTS = 20
const KEY_STATUS_TTL_MS = 60_000
const DAY_MS = 86_400_000

/** USD with at most 6 decimals, so sums of nano-dollars do not show float noise. */
/** Money as the dashboard shows it, in dollars or rubles: to six decimals (a micro-unit). */
const six = (n: number) => Math.round(n * 1e6) / 1e6

type UpstreamKey = {
  mode: 'demo' | 'openrouter'
  usage: number | null
  limit: number | null
  remaining: number | null
  unlimited: boolean
  error: string | null
}

export function adminService({ db, auth, upstream, rates, blog, teams, keys }: AdminDeps) {
  const store = adminStore(db)
  const billing = billingService(db)
  let keyCache: { at: number; value: UpstreamKey } | null = null

  /** The upstream key's spend and limit, cached for a minute (the router rate-limits this call). */
  async function upstreamKey(now: number): Promise<UpstreamKey> {
    if (keyCache && now - keyCache.at < KEY_STATUS_TTL_MS) return keyCache.value
    let value: UpstreamKey
    try {
      const k = await upstream.keyStatus()
      const unlimited = k.limit === null || k.limit >= UNLIMITED_LIMIT_USD
      value = { mode: upstream.mode, usage: six(k.usage), limit: k.limit, remaining: unlimited ? null : k.limitRemaining, unlimited, error: null }
    } catch (e) {
      console.warn(`[admin] upstream key status unavailable: ${(e as Error).message}`)
      value = { mode: upstream.mode, usage: null, limit: null, remaining: null, unlimited: false, error: 'Провайдер не ответил на запрос о расходах ключа' }
    }
    keyCache = { at: now, value }
    return value
  }

  function toListed(row: Awaited<ReturnType<typeof store.users>>['rows'][number]) {
    const u = auth.toPublic(row.user)
    return {
      id: u.id,
      email: u.email,
      role: u.role,
      balance: u.balance,
      /** What running requests hold of the balance (a deduction may take only the rest). */
      held: microsToRub(row.user.heldMicros),
      createdAt: u.createdAt,
      apiKeys: row.apiKeys,
      usageLogs: row.usageLogs,
      emailVerified: u.emailVerified,
      lastActiveAt: row.lastActive > 0 ? new Date(row.lastActive).toISOString() : null,
    }
  }

  function parseAmount(raw: unknown): number {
    if (typeof raw !== 'number' || !Number.isFinite(raw)) throw badRequest(ADMIN_MESSAGES.amountNotNumber)
    if (Math.abs(raw) > MAX_ADJUSTMENT_RUB) throw badRequest(ADMIN_MESSAGES.amountTooLarge)
    const micros = rubToMicros(raw)
    if (micros === 0) throw badRequest(ADMIN_MESSAGES.amountZero)
    return micros
  }

  /**
   * The route's `description` is the reason, stored with the ledger row as given; the customer's
   * history reads it as «Корректировка администратора: <причина>» (money/ledger.ts describeMovement).
   */
  function parseDescription(raw: unknown): string {
    if (raw === undefined || raw === null) return DEFAULT_DESCRIPTION
    if (typeof raw !== 'string') throw badRequest(ADMIN_MESSAGES.descriptionNotText)
    const text = raw.replace(/\s+/g, ' ').trim()
    if (text.length > 200) throw badRequest(ADMIN_MESSAGES.descriptionTooLong)
    return text || DEFAULT_DESCRIPTION
  }

  /**
   * Posts an admin adjustment to an account — personal, or a team's (then the admin is the row's
   * user and actor); a deduction takes at most what is available: the balance less what running
   * requests hold (their answers are paid from it).
   */
  async function adjust(
    admin: PublicUser,
    account: { userId: string; teamId: string | null },
    input: { amount?: unknown; description?: unknown },
    moneyNow: () => Promise<{ balanceMicros: number; heldMicros: number } | undefined>,
  ) {
    const amountMicros = parseAmount(input.amount)
    const description = parseDescription(input.description)
    const now = new Date()
    let movement: { id: string; balanceAfterMicros: number }
    try {
      movement = await tx(db, async (q) => {
        const posted = await postMovement(q, { ...account, type: 'admin', amountMicros, description, actorId: admin.id, requireAvailable: true, now })
        // A credit may lift the balance back over the account's low-balance level: the next drop alerts again.
        if (amountMicros > 0) await rearmLowBalance(q, account)
        if (account.teamId)
          await auditIn(q, {
            teamId: account.teamId,
            actorId: admin.id,
            action: 'balance.adjusted',
            target: `${formatSignedMicros(amountMicros)} ₽`,
            details: { description, byPlatformAdmin: true },
            at: now,
          })
        return posted
      })
    } catch (e) {
      if (!(e instanceof InsufficientFundsError)) throw e
      const money = await moneyNow()
      throw badRequest(overDeductionMessage(microsToRub(money?.balanceMicros ?? 0), microsToRub(money?.heldMicros ?? 0)))
    }
    return {
      balance: microsToRub(movement.balanceAfterMicros),
      transaction: {
        id: movement.id,
        amount: formatSignedMicros(amountMicros),
        balanceAfter: microsToRub(movement.balanceAfterMicros),
        description,
        type: 'admin' as const,
        createdAt: now.toISOString(),
      },
    }
  }

  /** This month's spend per upstream: a scan of the month's usage rows, so read at most once a minute. */
  let byUpstream: { at: number; value: ReturnType<typeof store.spendByUpstream> } | null = null
  const spendByUpstream = () => {
    const at = Date.now()
    if (!byUpstream || at - byUpstream.at > 60_000) byUpstream = { at, value: store.spendByUpstream(new Date(periodStart('month', clockNow()))) }
    return byUpstream.value
  }

  return {
    async stats(now = new Date()) {
      // Independent reads (and the provider's key status) side by side.
      const [users, usage, blogSpendNano, uncovered, ledgerCount, apiKeyCount, blogCounts, openrouter, month] = await Promise.all([
        store.userCounts(new Date(+now - 7 * DAY_MS), moscowDayStart(moscowDay(now))),
        store.usageTotals(),
        blog.platformSpendNanoUsd(),
        store.uncovered(0),
        store.ledgerCount(),
        store.apiKeyCount(),
        blog.counts(),
        upstreamKey(+now),
        spendByUpstream(),
      ])
      const spendNano = usage.upstreamNano + blogSpendNano
      const rate = rates.current()
      const rateNumber = rate ? Number(toDecimalString(rate)) : null
      const revenueRub = microsToRub(usage.costMicros)
      const costUsd = spendNano / 1e9
      const costRub = usage.upstreamNanoRub / 1e9
      return {
        openrouter,
        users: { total: users.total, newWeek: users.newWeek, newToday: users.newToday },
        finance: {
          totalTransactions: ledgerCount,
          totalBalance: microsToRub(users.balanceMicros),
          totalRevenue: revenueRub,
          openrouterCost: six(costUsd),
          providerCostRub: six(costRub),
          // Revenue and ruble costs converted at today's rate, not at each request's: an estimate, and the UI says so.
          totalMargin: rateNumber ? six((revenueRub - costRub) / rateNumber - costUsd) : null,
          byUpstream: month.map((u) => ({
            upstream: u.upstream,
            label: upstreamLabel(u.upstream),
            requests: u.requests,
            revenue: microsToRub(u.revenueMicros),
            costUsd: six(u.costUsd),
            costRub: six(u.costRub),
            margin: rateNumber === null && u.costUsd > 0 ? null : six(microsToRub(u.revenueMicros) - u.costRub - u.costUsd * (rateNumber ?? 0)),
          })),
          usdRubRate: rateNumber,
          uncoveredCost: microsToRub(uncovered.micros),
          uncoveredRequests: uncovered.requests,
        },
        usage: {
          totalApiKeys: apiKeyCount,
          totalRequests: usage.requests,
          totalTokens: usage.tokens,
          totalAudioSeconds: usage.audioSeconds,
          totalCharacters: usage.characters,
        },
        blog: blogCounts,
      }
    },

    /** Requests whose reported cost the customer's balance could not cover, newest first. */
    async uncovered(limit: number) {
      const { requests, micros, rows } = await store.uncovered(limit)
      return {
        total: microsToRub(micros),
        requests,
        data: rows.map(({ row, email }) => ({
          id: row.id,
          usageId: row.usageId,
          userId: row.userId,
          email: email ?? null,
          model: row.model,
          upstreamId: row.upstreamId,
          held: microsToRub(row.heldMicros),
          cost: microsToRub(row.costMicros),
          charged: microsToRub(row.chargedMicros),
          uncovered: microsToRub(row.uncoveredMicros),
          createdAt: row.createdAt.toISOString(),
        })),
      }
    },

    async users(search: string | undefined, limit: number) {
      const { total, rows } = await store.users(search?.trim() ?? '', limit)
      return { data: rows.map(toListed), pagination: { total, limit } }
    },

    /** One customer for the admin: the list's line, their latest ledger rows, keys and requests. */
    async userDetail(userId: string) {
      const row = await store.userListed(userId)
      if (!row) throw notFound(ADMIN_MESSAGES.userNotFound)
      // the customer's personal account, as they see it themselves
      const personal = { userId, email: row.user.email, teamId: null, teamName: null, role: null, ip: '' }
      const [transactions, userKeys, requests] = await Promise.all([
        billing.transactions(personal, USER_PAGE_TRANSACTIONS),
        keys.list(personal),
        billing.recentRequests(userId, USER_PAGE_REQUESTS),
      ])
      return {
        user: toListed(row),
        transactions,
        keys: userKeys.map((k) => ({ id: k.id, name: k.name, keyPrefix: k.keyPrefix, isActive: k.isActive, createdAt: k.createdAt, lastUsedAt: k.lastUsedAt })),
        requests,
      }
    },

    /** A ledger row of type 'admin' carrying the admin's id; a deduction may not take held money. */
    async adjustBalance(admin: PublicUser, userId: string, input: { amount?: unknown; description?: unknown }) {
      const target = await store.liveUser(userId)
      if (!target) throw notFound(ADMIN_MESSAGES.userNotFound)
      const done = await adjust(admin, { userId, teamId: null }, input, () => store.liveUser(userId))
      console.log(`[admin] ${admin.email} adjusted the balance of user ${userId} by ${done.transaction.amount} ₽ (now ${done.balance} ₽)`)
      return { userId, ...done }
    },

    /** Teams with balance, members and spend (search by name), newest first. */
    teams: (search: string | undefined, limit: number) => teams.adminList(search, limit),

    /** A team's balance, like a user's: the ledger row (team's, with the admin as actor) and an audit entry the team's owners see. */
    async adjustTeamBalance(admin: PublicUser, teamId: string, input: { amount?: unknown; description?: unknown }) {
      if (!(await teams.adminTeam(teamId))) throw notFound(ADMIN_MESSAGES.teamNotFound)
      const done = await adjust(admin, { userId: admin.id, teamId }, input, () => teams.adminTeam(teamId))
      console.log(`[admin] ${admin.email} adjusted the balance of team ${teamId} by ${done.transaction.amount} ₽ (now ${done.balance} ₽)`)
      return { teamId, ...done }
    },

    /** Ends the account at once (keys, sessions) and anonymises it; ledger and usage rows stay for their retention periods. */
    async deleteUser(admin: PublicUser, userId: string) {
      if (userId === admin.id) throw badRequest(ADMIN_MESSAGES.cannotDeleteSelf)
      if (!(await store.liveUser(userId))) throw notFound(ADMIN_MESSAGES.userNotFound)
      const removed = await auth.eraseAccount(userId)
      console.log(`[admin] ${admin.email} deleted user ${userId} (${removed.keys} key(s), ${removed.sessions} session(s) revoked)`)
      return { id: userId, deleted: true as const }
    },
  }
}

export type AdminService = ReturnType<typeof adminService>
