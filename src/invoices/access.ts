// What every part of the invoices service is built from, and who may act on a team's invoices.

import type { Config } from '../config'
import type { Db } from '../db/types'
import { notFound } from '../lib/errors'
import type { Mailer } from '../mail/service'
import { type Acting, TEAM_MESSAGES, type TeamsService } from '../teams/service'

export type InvoicesDeps = { db: Db; config: Config; mailer: Mailer; teams: TeamsService }

/** The signed-in caller, as far as the invoices need them. */
export type User = { id: string; email: string }

export type TeamActing = Acting & { teamId: string; teamName: string }

/** The most rows a list answers with. */
export const MAX_LISTED = 200

/**
 * The team of a /api/teams/:id route with a role that has `permission` (404 for outsiders and for
 * «personal»): `company.manage` for the company details, `topup` for invoices and documents.
 */
export const teamAccess =
  (teams: TeamsService) =>
  async (user: User, teamId: string, permission: 'topup' | 'company.manage', ip: string): Promise<TeamActing> => {
    const a = await teams.acting(user, teamId, permission, ip)
    if (!a.teamId) throw notFound(TEAM_MESSAGES.notFound)
    return a as TeamActing
  }
