// Teams under test: an owner with a team, members joined through real invitations (the letter's
// link, read from the outbox or the SMTP test server), team-context calls (X-Team-Id) and top-ups
// through the built-in test payment page. Everything goes over HTTP against the real server.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { freshIp, readResult, registerUser, uniqueEmail } from './server'

export type Role = 'owner' | 'admin' | 'billing' | 'member'
export type Person = Awaited<ReturnType<typeof registerUser>>
export type Res = { status: number; body: any; headers: Headers }

/** Any /api or /v1 call with a token and, in team context, the X-Team-Id header. */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; team?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Res> {
  const headers: Record<string, string> = { 'x-forwarded-for': freshIp(), ...opts.headers }
  if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] = 'application/json'
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  if (opts.team) headers['x-team-id'] = opts.team
  return readResult(await fetch(base + path, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) }))
}

/** The letters written to DATA_DIR/outbox (no SMTP configured), for one recipient, oldest first. */
export function outboxLetters(dataDir: string, to: string): { to: string; subject: string; text: string }[] {
  const dir = join(dataDir, 'outbox')
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      // A letter still being written is read on the next look.
      try {
        return [JSON.parse(readFileSync(join(dir, f), 'utf8'))]
      } catch {
        return []
      }
    })
    .filter((l) => String(l.to).toLowerCase() === to.toLowerCase())
}

/** The invitation token in a letter's link /invite/<token>. */
export const inviteToken = (text: string) => text.match(/\/invite\/([A-Za-z0-9_-]+)/)?.[1]

async function waitFor<T>(check: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = check()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error('condition not met in time')
    // Not Bun.sleep: Playwright specs (under Node) use these helpers too.
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** A server's teams: create, invite and join through the letter, top up through the test payment page. */
export function teamsOn(base: string, dataDir: string) {
  const api = (method: string, path: string, token: string, body?: unknown, team?: string | null) => call(base, method, path, { token, body, team })

  async function invite(owner: Person, teamId: string, role: Exclude<Role, 'owner'>, email = uniqueEmail(role)) {
    const before = outboxLetters(dataDir, email).length
    const res = await api('POST', `/api/teams/${teamId}/invitations`, owner.accessToken, { email, role })
    if (res.status !== 201) throw new Error(`invite failed: ${res.status} ${JSON.stringify(res.body)}`)
    const letter = await waitFor(() => outboxLetters(dataDir, email)[before])
    return { email, token: inviteToken(letter.text)!, letter, invitation: res.body.data }
  }

  /** Registers a new account for the address and accepts the invitation with it. */
  async function join(owner: Person, teamId: string, role: Exclude<Role, 'owner'>) {
    const { email, token } = await invite(owner, teamId, role)
    const person = await registerUser(base, email)
    const res = await api('POST', '/api/teams/invitations/accept', person.accessToken, { token })
    if (res.status !== 200) throw new Error(`accept failed: ${res.status} ${JSON.stringify(res.body)}`)
    return person
  }

  return {
    api,
    invite,
    join,

    /** An owner (a new account) and their new team. */
    async create(name = 'Команда') {
      const owner = await registerUser(base)
      const res = await api('POST', '/api/teams', owner.accessToken, { name })
      if (res.status !== 201) throw new Error(`team create failed: ${res.status} ${JSON.stringify(res.body)}`)
      return { owner, team: res.body.data as { id: string; name: string; role: Role; balance: number } }
    },

    /** A team with one member of each role (the owner made it). */
    async withRoles(name = 'Команда') {
      const { owner, team } = await this.create(name)
      const admin = await join(owner, team.id, 'admin')
      const billing = await join(owner, team.id, 'billing')
      const member = await join(owner, team.id, 'member')
      return { team, owner, admin, billing, member, byRole: { owner, admin, billing, member } as Record<Role, Person> }
    },

    /** A card top-up of the team through the built-in test payment page (the same crediting path as YooKassa's). */
    async topUp(payer: Person, teamId: string, amountRub: number) {
      const created = await api('POST', '/api/payments/create', payer.accessToken, { amount: amountRub }, teamId)
      if (created.status !== 200) throw new Error(`payment failed: ${created.status} ${JSON.stringify(created.body)}`)
      const providerId = new URL(created.body.data.confirmationUrl).pathname.split('/').pop()!
      const paid = await call(base, 'POST', `/api/payments/test/${providerId}/pay`)
      if (paid.body?.data?.status !== 'succeeded') throw new Error(`test payment not paid: ${JSON.stringify(paid.body)}`)
      return created.body.data.id as string
    },

    /** A key made in team context (it belongs to the team and to its maker). */
    async key(person: Person, teamId: string | null, name = 'ключ') {
      const res = await api('POST', '/api/auth/api-keys', person.accessToken, { name }, teamId)
      if (res.status !== 201) throw new Error(`key create failed: ${res.status} ${JSON.stringify(res.body)}`)
      return res.body.data as { id: string; key: string; name: string }
    },
  }
}
