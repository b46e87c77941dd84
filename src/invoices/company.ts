// A team's company details, and who may bill in a company's name: the first team to name an INN may;
// another team naming the same INN waits for the site admin, who confirms or rejects it (a spoofer may
// have come first, so a first registrant can be rejected too).

import { tx } from '../db/tx'
import { badRequest, conflict, notFound } from '../lib/errors'
import { auditIn, TEAM_MESSAGES } from '../teams/service'
import { type InvoicesDeps, MAX_LISTED, teamAccess, type User } from './access'
import { INVOICE_MESSAGES } from './messages'
import { innKppError, normalizeKpp } from './requisites'
import type { InnConfirmation, TeamCompanyRow } from './schema'
import { invoicesStore } from './store'

/** Whether a team may bill in the name of its company: it named the INN first, or the site admin confirmed it. */
export const mayBill = (c: InnConfirmation) => c === 'not_needed' || c === 'confirmed'

/** Which registrations the site admin may move where: a first registrant may be rejected too (a spoofer who came first). */
const INN_REVIEW: Record<'confirmed' | 'rejected', InnConfirmation[]> = {
  confirmed: ['pending', 'rejected'],
  rejected: ['pending', 'confirmed', 'not_needed'],
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

function cleanText(raw: unknown, max: number, empty: string, tooLong: string): string {
  const text = typeof raw === 'string' ? raw.replace(/\s+/g, ' ').trim() : ''
  if (!text) throw badRequest(empty)
  if (text.length > max) throw badRequest(tooLong)
  return text
}

function companyToApi(c: TeamCompanyRow | undefined) {
  if (!c) return null
  return {
    inn: c.inn,
    kpp: c.kpp,
    name: c.name,
    address: c.address,
    email: c.email,
    updatedAt: c.updatedAt.toISOString(),
    innConfirmation: c.innConfirmation,
  }
}

const registrationToApi = (c: TeamCompanyRow, teamName: string, first: boolean) => ({
  ...companyToApi(c)!,
  teamId: c.teamId,
  teamName,
  first,
  innReviewedAt: c.innReviewedAt?.toISOString() ?? null,
})

export function companyService({ db, teams }: InvoicesDeps) {
  const store = invoicesStore(db)
  const inTeam = teamAccess(teams)

  return {
    async company(user: User, teamId: string, ip: string) {
      await inTeam(user, teamId, 'company.manage', ip)
      return { company: companyToApi(await store.company(teamId)) }
    },

    async saveCompany(user: User, teamId: string, input: { inn: string; kpp?: string | null; name: string; address: string; email: string }, ip: string) {
      const a = await inTeam(user, teamId, 'company.manage', ip)
      const inn = input.inn.replace(/\s+/g, '')
      const kppGiven = input.kpp == null ? '' : normalizeKpp(input.kpp)
      const bad = innKppError(inn, kppGiven || null)
      if (bad) throw badRequest(bad)
      const name = cleanText(input.name, 300, INVOICE_MESSAGES.name, INVOICE_MESSAGES.nameTooLong)
      const address = cleanText(input.address, 500, INVOICE_MESSAGES.address, INVOICE_MESSAGES.addressTooLong)
      const email = input.email.trim()
      if (!email) throw badRequest(INVOICE_MESSAGES.email)
      if (email.length > 254 || !EMAIL_RE.test(email)) throw badRequest(INVOICE_MESSAGES.badEmail)
      const now = new Date()
      const row = await tx(db, async (q) => {
        const s = invoicesStore(q)
        const before = await s.company(teamId)
        // The same INN keeps its standing (a new address is no reason to ask the admin again, nor a way
        // out of a rejection); a new one is checked against the INN's first registrant.
        let review: Pick<TeamCompanyRow, 'innConfirmation' | 'innReviewedAt' | 'innReviewedBy'>
        let firstTeamId: string | null = null
        if (before?.inn === inn) review = { innConfirmation: before.innConfirmation, innReviewedAt: before.innReviewedAt, innReviewedBy: before.innReviewedBy }
        else {
          firstTeamId = await s.firstRegistrant(q, inn, teamId, now)
          review = { innConfirmation: firstTeamId === teamId ? 'not_needed' : 'pending', innReviewedAt: null, innReviewedBy: null }
        }
        const row: TeamCompanyRow = { teamId, inn, kpp: kppGiven || null, name, address, email, updatedAt: now, updatedBy: a.userId, ...review }
        await s.saveCompany(q, row)
        await auditIn(q, {
          teamId,
          actorId: a.userId,
          action: 'company.updated',
          target: `${name}, ИНН ${inn}`,
          ip,
          details: { kpp: row.kpp, email, innConfirmation: row.innConfirmation },
          at: now,
        })
        if (review.innConfirmation === 'pending' && firstTeamId)
          console.log(`[invoices] team ${teamId} registered INN ${inn}, first registered by team ${firstTeamId}: invoices wait for the site admin's confirmation`)
        return row
      })
      return companyToApi(row)!
    },

    // ─── the site admin ────────────────────────────────────────────────────────

    /** INNs registered by more than one team, each with its teams (the first registrant first); by default only those awaiting a decision. */
    async innConflicts(pendingOnly: boolean) {
      const rows = await store.innConflicts(pendingOnly, MAX_LISTED * 5)
      const byInn = new Map<string, ReturnType<typeof registrationToApi>[]>()
      for (const r of rows) {
        const list = byInn.get(r.company.inn) ?? []
        list.push(registrationToApi(r.company, r.teamName, r.firstTeamId === r.company.teamId))
        byInn.set(r.company.inn, list)
      }
      return [...byInn].map(([inn, registrations]) => ({ inn, registrations: registrations.sort((x, y) => Number(y.first) - Number(x.first)) })).slice(0, MAX_LISTED)
    },

    /**
     * The site admin confirms (the team may issue invoices on the INN and be credited by its payments)
     * or rejects a team's registration of `inn`. `inn` is the one the admin saw: if the team changed
     * its details in the meantime, nothing is decided.
     */
    async reviewInn(admin: User, teamId: string, inn: string, to: 'confirmed' | 'rejected') {
      const now = new Date()
      const row = await tx(db, async (q) => {
        const s = invoicesStore(q)
        const row = await s.reviewInn(q, teamId, inn.trim(), INN_REVIEW[to], to, now, admin.id)
        if (!row) {
          const current = await s.company(teamId)
          if (!current) throw notFound(TEAM_MESSAGES.notFound)
          throw conflict(current.inn === inn.trim() ? INVOICE_MESSAGES.innAlready(to) : INVOICE_MESSAGES.innReviewGone)
        }
        await auditIn(q, {
          teamId,
          actorId: admin.id,
          action: to === 'confirmed' ? 'company.inn_confirmed' : 'company.inn_rejected',
          target: `${row.name}, ИНН ${row.inn}`,
          details: { byPlatformAdmin: true },
          at: now,
        })
        return row
      })
      console.log(`[invoices] INN ${row.inn} of team ${teamId} ${to} by ${admin.email}`)
      return registrationToApi(row, (await teams.teamName(teamId)) ?? '', (await store.firstTeamOf(row.inn)) === teamId)
    },
  }
}
