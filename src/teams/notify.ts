// Alerts, sent after the settling unit has committed and never on the request's path: a letter to a
// personal account whose balance fell below its level; for a team, letters to its owners and admins
// and the webhook. Budget thresholds (50, 80, 100 %) go once per budget, threshold and period —
// the first instance to insert the alert's row sends it (money/budgets.ts claimAlert).

import type { Config } from '../config'
import type { Db } from '../db/types'
import { microsToRub } from '../lib/money'
import type { Mailer } from '../mail/service'
import { budgetAlertLetter, lowBalanceLetter, teamLowBalanceLetter } from '../mail/templates'
import { type BudgetCrossing, claimAlert, type LowBalance, moscowDateTimeRu, type Notifier, nextReset, PERIOD_PHRASES } from '../money'
import { teamsStore } from './store'
import { webhookDeliveries } from './webhooks'

/** Alerts already claimed by this process: a budget refusing request after request tries its 100 % row once. */
const CLAIMED_MEMO = 10_000

export function createNotifier({ db, config, mailer }: { db: Db; config: Config; mailer: Mailer }): Notifier {
  const store = teamsStore(db)
  const outbox = webhookDeliveries(db)
  const claimed = new Set<string>()
  const fail = (what: string) => (e: unknown) => console.error(`[alerts] ${what}: ${(e as Error).message}`)
  const send = (letters: Parameters<Mailer['send']>[0][]) => Promise.all(letters.map((l) => mailer.send(l).catch(fail(`letter to ${l.to} not sent`))))

  async function lowBalance(alert: LowBalance) {
    const { teamId } = alert.account
    if (!teamId) {
      await send([lowBalanceLetter(alert.label, alert.balanceMicros, alert.thresholdMicros, `${config.publicUrl}/app/billing`)])
      return
    }
    const to = await store.emailsOf(teamId, ['owner', 'admin'])
    await send(to.map((email) => teamLowBalanceLetter(email, alert.label, alert.balanceMicros, alert.thresholdMicros, `${config.publicUrl}/app/billing?team=${teamId}`)))
    await outbox.enqueue(teamId, 'team.low_balance', {
      team: { id: teamId, name: alert.label },
      balance_rub: microsToRub(alert.balanceMicros),
      threshold_rub: microsToRub(alert.thresholdMicros),
    })
  }

  async function budget(c: BudgetCrossing) {
    const target = c.level === 'key' ? `key:${c.keyId}` : `member:${c.teamId}:${c.userId}`
    const memo = `${target}:${c.threshold}:${c.periodStart}`
    if (claimed.has(memo)) return
    if (claimed.size >= CLAIMED_MEMO) claimed.clear()
    claimed.add(memo)
    if (!(await claimAlert(db, target, c.threshold, c.periodStart))) return
    const key = c.keyId ? await store.keyOf(c.keyId) : undefined
    const teamName = c.teamId ? ((await store.team(c.teamId))?.name ?? null) : null
    const ownEmail = await store.userEmail(c.userId)
    const what = c.level === 'key' ? `API-ключ «${key?.name ?? 'удалён'}»${teamName ? ` команды «${teamName}»` : ''}` : `Участник ${ownEmail ?? ''} команды «${teamName ?? ''}»`
    const reset = nextReset(c.period, c.periodStart)
    const recipients = new Set<string>(c.teamId ? await store.emailsOf(c.teamId, ['owner', 'admin']) : [])
    if (ownEmail) recipients.add(ownEmail)
    const link = `${config.publicUrl}${c.level === 'key' ? '/app/api-keys' : '/app/team'}`
    await send(
      [...recipients].map((to) =>
        budgetAlertLetter(to, {
          what,
          threshold: c.threshold,
          spentMicros: c.spentMicros,
          limitMicros: c.limitMicros,
          periodPhrase: PERIOD_PHRASES[c.period],
          resetsAt: reset === null ? null : moscowDateTimeRu(reset),
          link,
        }),
      ),
    )
    if (c.teamId)
      await outbox.enqueue(c.teamId, 'budget.threshold', {
        team: { id: c.teamId, name: teamName },
        level: c.level,
        threshold: c.threshold,
        limit_rub: microsToRub(c.limitMicros),
        spent_rub: microsToRub(c.spentMicros),
        period: c.period,
        period_start: c.period === 'total' ? null : new Date(c.periodStart).toISOString(),
        resets_at: reset === null ? null : new Date(reset).toISOString(),
        ...(c.level === 'key' ? { key: { id: c.keyId, name: key?.name ?? null, owner: ownEmail } } : { member: { user_id: c.userId, email: ownEmail } }),
      })
  }

  return {
    lowBalance: (alert) => void lowBalance(alert).catch(fail('low-balance alert')),
    budgets: (crossings) => {
      for (const c of crossings) void budget(c).catch(fail(`budget alert ${c.level} ${c.threshold} %`))
    },
  }
}
