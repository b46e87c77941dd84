// Accounts and sessions. Access JWTs are signed by the route layer (the jwt plugin lives there);
// everything else — passwords, refresh-token rotation, resets, e-mail confirmation, rate limits —
// happens here. A session is a refresh-token family; its id is the access token's `sid` claim.

import { eq } from 'drizzle-orm'
import type { Config } from '../config'
import { tx, write } from '../db/tx'
import type { Db } from '../db/types'
import { newId, randomToken, sha256 } from '../lib/crypto'
import { AppError, badRequest, conflict, isUniqueViolation, tooManyRequests, unauthorized } from '../lib/errors'
import { microsToRub, rubToMicros } from '../lib/money'
import { oneTimeLinks } from '../lib/one-time-link'
import { type Backoff, backoffAttempt, backoffClear, backoffUncount, consume, type Rule } from '../lib/rate-limit'
import type { Mailer } from '../mail/service'
import { emailVerificationLetter, passwordChangedLetter, passwordResetLetter } from '../mail/templates'
import { LEDGER, postMovement } from '../money'
import { referrerFor } from '../promo/service'
import { deviceName } from './device'
import { emailVerifications, passwordResets, type UserRow } from './schema'
import { authStore } from './store'

export const MESSAGES = {
  fillAll: 'Заполните все поля',
  passwordMin8: 'Пароль должен содержать минимум 8 символов',
  passwordMin6: 'Пароль должен быть не менее 6 символов',
  passwordTooLong: 'Пароль слишком длинный (максимум 256 символов)',
  badEmail: 'Некорректный email',
  enterEmail: 'Введите email',
  emailTaken: 'Пользователь с таким email уже существует',
  badCredentials: 'Неверный email или пароль',
  sessionExpired: 'Сессия истекла, войдите снова',
  resetInvalid: 'Ссылка для сброса пароля недействительна или устарела',
  resetSent: 'Если аккаунт с таким email существует, мы отправили на него письмо со ссылкой для сброса пароля',
  resetDone: 'Пароль изменён. Войдите с новым паролем',
  loginThrottled: 'Слишком много неудачных попыток входа',
  verifyInvalid: 'Ссылка для подтверждения e-mail недействительна или устарела',
  verifyDone: 'E-mail подтверждён',
  alreadyVerified: 'E-mail уже подтверждён',
  wrongCurrentPassword: 'Текущий пароль указан неверно',
  samePassword: 'Новый пароль совпадает с текущим',
  passwordChanged: 'Пароль изменён. На других устройствах нужно войти заново',
  deleteConfirmMismatch: 'Введите e-mail аккаунта, чтобы подтвердить удаление',
  accountDeleted: 'Аккаунт удалён',
  tooMany: 'Слишком много попыток, попробуйте позже',
} as const

/** Per-IP and per-e-mail budgets; generous for people, tight for scripts. */
export const RATE_RULES = {
  register: { ip: { limit: 10, windowSec: 3600 }, email: { limit: 5, windowSec: 3600 } },
  forgot: { ip: { limit: 10, windowSec: 3600 }, email: { limit: 3, windowSec: 3600 } },
  /** "Send the confirmation letter again". */
  verify: { ip: { limit: 10, windowSec: 3600 }, email: { limit: 3, windowSec: 3600 } },
  /** Password changes on /app/account: a stolen access token cannot brute-force the current password. */
  changePassword: { ip: { limit: 10, windowSec: 3600 }, email: { limit: 5, windowSec: 3600 } },
  /** Deleting one's own account (the e-mail typed as confirmation). */
  deleteAccount: { ip: { limit: 10, windowSec: 3600 }, email: { limit: 5, windowSec: 3600 } },
} satisfies Record<string, { ip: Rule; email: Rule }>

/**
 * Sign-in throttling that a stranger cannot turn against the owner (OWASP): attempts are counted
 * per (address, client IP) and per client IP, never per address alone, so a flood of wrong
 * passwords from one place never locks out the right password typed elsewhere. Waits double from
 * the base up to 15 minutes; the right password clears its own pair.
 */
export const LOGIN_BACKOFF = {
  pair: { threshold: 5, baseDelaySec: 30, maxDelaySec: 15 * 60, forgetSec: 24 * 3600 },
  ip: { threshold: 30, baseDelaySec: 60, maxDelaySec: 15 * 60, forgetSec: 24 * 3600 },
} satisfies Record<string, Backoff>

export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000
export const VERIFY_TOKEN_TTL_HOURS = 24
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const MAX_PASSWORD = 256

// Argon2id with OWASP's recommended minimum (19 MiB, t=2) keeps a login around tens of milliseconds.
const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id', memoryCost: 19456, timeCost: 2 })

/** The stored bytes of a deleted account's files (their rows are already gone). */
export type StoredFiles = { uploads: string[]; images: string[] }
export type Deps = {
  db: Db
  config: Config
  mailer: Mailer
  /** `claim`: gives the account's files that predate owners their owner first, so its own go with it. */
  files?: { claim?(userId: string): Promise<void>; removeStored(gone: StoredFiles): void }
}

/** Thrown inside a unit to roll it back when the link turns out to be used already. */
const LINK_USED = Symbol('link used')
/** Who opened a session: stored with it at sign-in and registration, shown in the session list. */
type Client = { ip?: string; userAgent?: string }
const MAX_USER_AGENT = 512

export type PublicUser = ReturnType<ReturnType<typeof authService>['toPublic']>

/** The two one-time links of an account (lib/one-time-link.ts; team invitations are the third). */
const resetLinks = oneTimeLinks(passwordResets, RESET_TOKEN_TTL_MS)
const verifyLinks = oneTimeLinks(emailVerifications, VERIFY_TOKEN_TTL_HOURS * 3600_000)

export function authService({ db, config, mailer, files }: Deps) {
  const store = authStore(db)
  // Compared against when the e-mail is unknown, so a login takes as long either way.
  const dummyHash = hashPassword(randomToken())

  const normalizeEmail = (email: string) => email.trim().toLowerCase()

  function checkEmail(email: string) {
    if (email.length > 254 || !EMAIL_RE.test(email)) throw badRequest(MESSAGES.badEmail)
  }

  async function limit(action: keyof typeof RATE_RULES, ip: string, email?: string) {
    const scaled = (r: Rule) => ({ limit: r.limit * config.authRateLimitScale, windowSec: r.windowSec })
    await consume(db, `${action}:ip:${ip}`, scaled(RATE_RULES[action].ip))
    if (email) await consume(db, `${action}:email:${email}`, scaled(RATE_RULES[action].email))
  }

  const roleOf = (u: UserRow) => (config.adminEmails.includes(u.emailNormalized) ? 'admin' : u.role)

  function toPublic(u: UserRow) {
    return {
      id: u.id,
      email: u.email,
      role: roleOf(u) as 'user' | 'admin',
      balance: microsToRub(u.balanceMicros),
      createdAt: u.createdAt.toISOString(),
      /** The address was confirmed by the link in the letter (the welcome bonus waits for it). */
      emailVerified: u.emailVerifiedAt !== null,
    }
  }

  /** Writes a one-time confirmation link and mails it; the letter leaves in the background. */
  async function sendVerification(user: { id: string; email: string }) {
    const { token } = await write(db, (q) => verifyLinks.issue(q, { userId: user.id }))
    const link = `${config.publicUrl}/verify-email/${token}`
    mailer.send(emailVerificationLetter(user.email, link, config.welcomeBonusRub, VERIFY_TOKEN_TTL_HOURS)).catch((e) => {
      console.error(`[mail] confirmation letter for user ${user.id} failed:`, (e as Error).message)
    })
  }

  /** Inside a unit: the welcome bonus with its ledger row, at most once per account (the reference is unique). */
  async function creditWelcomeBonus(q: Db, userId: string, now: Date): Promise<boolean> {
    const bonus = rubToMicros(config.welcomeBonusRub)
    if (bonus <= 0 || (await store.hasLedgerReference(q, LEDGER.welcome.reference(userId)))) return false
    await postMovement(q, { userId, type: 'bonus', amountMicros: bonus, description: LEDGER.welcome.description, reference: LEDGER.welcome.reference(userId), now })
    return true
  }

  /**
   * Ends an account at once, whoever deletes it (the customer or an admin): its files that predate
   * owners are claimed first, then one unit anonymises it and deletes its keys, sessions, team memberships and content;
   * then the stored bytes of its files go. Returns what was revoked.
   */
  async function eraseAccount(userId: string) {
    await files?.claim?.(userId)
    const removed = await tx(db, (q) => store.anonymise(q, userId, new Date()))
    try {
      files?.removeStored(removed.files)
    } catch (e) {
      // The rows are gone, so nothing serves these bytes any more; the folder keeps them until removed by hand.
      console.error(`[auth] files of deleted user ${userId} not removed: ${(e as Error).message}`)
    }
    return removed
  }

  /**
   * Inside a unit: a new refresh token; `familyId` continues an existing session, otherwise one
   * starts. `client`: the device and address that signed in, kept on every token of the session.
   */
  async function issueRefreshToken(q: Db, userId: string, familyId = newId(), client: Client = {}) {
    const token = randomToken()
    const now = new Date()
    await store.insertRefreshToken(q, {
      id: newId(),
      userId,
      familyId,
      tokenHash: sha256(token),
      createdAt: now,
      expiresAt: new Date(now.getTime() + config.refreshTokenTtlDays * 86_400_000),
      userAgent: client.userAgent?.slice(0, MAX_USER_AGENT) || null,
      ip: client.ip?.slice(0, 64) || null,
    })
    return { refreshToken: token, sid: familyId }
  }

  return {
    toPublic,
    eraseAccount,

    /** The signed-in user for an access token's subject, or undefined when the account is gone. */
    async userForToken(userId: string) {
      const row = await store.userById(userId)
      return row && toPublic(row)
    },

    async register(input: { email: string; password: string; referralCode?: unknown }, ip: string, userAgent?: string) {
      const email = input.email.trim()
      if (!email || !input.password) throw badRequest(MESSAGES.fillAll)
      const normalized = normalizeEmail(email)
      await limit('register', ip, normalized)
      checkEmail(email)
      if (input.password.length < 8) throw badRequest(MESSAGES.passwordMin8)
      if (input.password.length > MAX_PASSWORD) throw badRequest(MESSAGES.passwordTooLong)
      if (await store.userByEmail(normalized)) throw conflict(MESSAGES.emailTaken)

      const passwordHash = await hashPassword(input.password)
      const referredBy = await referrerFor(db, input.referralCode)
      const now = new Date()
      const id = newId()
      try {
        // Without confirmation the account and its welcome bonus exist together or not at all;
        // with it, the bonus waits for the link in the letter (still once per account).
        // The check above is for the common case; two registrations racing (on any instances) meet here.
        const session = await tx(db, async (q) => {
          if (!(await store.insertUser(q, { id, email, emailNormalized: normalized, passwordHash, referredBy, createdAt: now, updatedAt: now })))
            throw conflict(MESSAGES.emailTaken)
          if (!config.requireEmailVerification) await creditWelcomeBonus(q, id, now)
          return issueRefreshToken(q, id, undefined, { ip, userAgent })
        })
        if (config.requireEmailVerification) await sendVerification({ id, email })
        return { user: toPublic((await store.userById(id))!), ...session }
      } catch (e) {
        if (isUniqueViolation(e)) throw conflict(MESSAGES.emailTaken)
        throw e
      }
    },

    async login(input: { email: string; password: string }, ip: string, userAgent?: string) {
      const email = input.email.trim()
      if (!email || !input.password) throw badRequest(MESSAGES.fillAll)
      const normalized = normalizeEmail(email)
      const scale = (b: Backoff) => ({ ...b, threshold: b.threshold * config.authRateLimitScale })
      const pair = { key: `login:pair:${sha256(normalized).slice(0, 32)}:${ip}`, rule: scale(LOGIN_BACKOFF.pair) }
      const fromIp = { key: `login:ip:${ip}`, rule: scale(LOGIN_BACKOFF.ip) }
      // Counted before the (slow) password check, so a burst of parallel guesses is counted too;
      // the right password takes its count back below.
      const wait = await backoffAttempt(db, [pair, fromIp])
      if (wait > 0) throw tooManyRequests(wait, MESSAGES.loginThrottled)
      const user = await store.userByEmail(normalized)
      const valid = await Bun.password.verify(input.password.slice(0, MAX_PASSWORD), user?.passwordHash ?? (await dummyHash))
      if (!user || !valid) throw new AppError(401, MESSAGES.badCredentials)
      await Promise.all([backoffClear(db, pair.key), backoffUncount(db, fromIp.key)])
      const session = await tx(db, (q) => issueRefreshToken(q, user.id, undefined, { ip, userAgent }))
      return { user: toPublic(user), ...session }
    },

    /** Whether the session an access token names (its `sid`) is still open; see store.sessionActive. */
    sessionActive: (sid: string, userId: string) => store.sessionActive(sid, userId, new Date()),

    /** Rotates a refresh token. A replayed token revokes its whole family (the session). */
    async refresh(token: string) {
      const row = token ? await store.refreshTokenByHash(sha256(token)) : undefined
      if (!row) throw unauthorized(MESSAGES.sessionExpired)
      const now = new Date()
      // A deleted account's tokens are revoked with it; the lookup is the second lock on that door.
      if (row.revokedAt || row.expiresAt <= now || !(await store.userById(row.userId))) throw unauthorized(MESSAGES.sessionExpired)
      // The claim is a conditional UPDATE: of two instances presenting the same token at once, one wins.
      const next = await tx(db, async (q) =>
        (await store.claimRefreshToken(q, row.id, now)) ? issueRefreshToken(q, row.userId, row.familyId, { ip: row.ip ?? undefined, userAgent: row.userAgent ?? undefined }) : null,
      )
      if (!next) {
        await store.revokeFamily(row.familyId, now)
        console.warn(`[auth] refresh token reuse for user ${row.userId}; session revoked`)
        throw unauthorized(MESSAGES.sessionExpired)
      }
      return { userId: row.userId, ...next }
    },

    /** Ends the session of a refresh token and/or of an access token (its sid): both die at once. */
    async logout(refreshToken: string | undefined, access?: { sid: string; userId: string }) {
      const now = new Date()
      const row = refreshToken ? await store.refreshTokenByHash(sha256(refreshToken)) : undefined
      if (row) await store.revokeFamily(row.familyId, now)
      if (access) await store.revokeFamilyOf(access.sid, access.userId, now)
    },

    /**
     * Change of password from /app/account: the current password must be right; every OTHER
     * session ends at once (their refresh and access tokens), the one making the change stays.
     */
    async changePassword(userId: string, sid: string, input: { currentPassword: string; newPassword: string }, ip: string) {
      const user = await store.userById(userId)
      if (!user) throw unauthorized()
      if (!input.currentPassword || !input.newPassword) throw badRequest(MESSAGES.fillAll)
      await limit('changePassword', ip, user.emailNormalized)
      if (input.newPassword.length < 8) throw badRequest(MESSAGES.passwordMin8)
      if (input.newPassword.length > MAX_PASSWORD) throw badRequest(MESSAGES.passwordTooLong)
      const valid = await Bun.password.verify(input.currentPassword.slice(0, MAX_PASSWORD), user.passwordHash)
      if (!valid) throw badRequest(MESSAGES.wrongCurrentPassword)
      if (input.currentPassword === input.newPassword) throw badRequest(MESSAGES.samePassword)
      const passwordHash = await hashPassword(input.newPassword)
      const now = new Date()
      await tx(db, async (q) => {
        await store.setPassword(q, userId, passwordHash, now)
        await store.revokeOthersForUser(q, userId, sid, now)
      })
      mailer.send(passwordChangedLetter(user.email, `${config.publicUrl}/forgot-password`)).catch((e) => {
        console.error(`[mail] password changed notice for user ${user.id} failed:`, (e as Error).message)
      })
      return { message: MESSAGES.passwordChanged }
    },

    /** Open sessions for /app/account; `current` marks the one the request came from. */
    async sessions(userId: string, currentSid: string) {
      return (await store.openSessions(userId, new Date())).map((s) => ({
        id: s.id,
        createdAt: new Date(s.createdAt).toISOString(),
        lastUsedAt: new Date(s.lastUsedAt).toISOString(),
        expiresAt: new Date(s.expiresAt).toISOString(),
        current: s.id === currentSid,
        device: s.userAgent ? deviceName(s.userAgent) : null,
        ip: s.ip ?? null,
      }))
    },

    /**
     * The customer deletes their own account: the same anonymisation as an admin's deletion
     * (store.anonymise) — keys, sessions and reset links go, ledger and usage rows stay.
     * The remaining balance is not refunded by this; a refund is a separate request (terms).
     */
    async deleteAccount(userId: string, input: { email: string }, ip: string) {
      const user = await store.userById(userId)
      if (!user) throw unauthorized()
      await limit('deleteAccount', ip, user.emailNormalized)
      if (normalizeEmail(input.email ?? '') !== user.emailNormalized) throw badRequest(MESSAGES.deleteConfirmMismatch)
      const removed = await eraseAccount(userId)
      console.log(`[auth] user ${userId} deleted their account (${removed.keys} key(s), ${removed.sessions} session(s) revoked)`)
      return { message: MESSAGES.accountDeleted }
    },

    /** "Log out everywhere": every session of the user, and so every access token, ends now. */
    async logoutAll(userId: string) {
      await write(db, (q) => store.revokeAllForUser(q, userId, new Date()))
    },

    /**
     * The link from the letter: confirms the address and credits the welcome bonus once per
     * account. Opening a used link again changes nothing and says the address is confirmed.
     */
    async verifyEmail(token: string) {
      const row = await verifyLinks.find(db, token)
      const user = row && (await store.userById(row.userId))
      if (!row || !user) throw badRequest(MESSAGES.verifyInvalid)
      if (row.usedAt) {
        if (user.emailVerifiedAt) return { message: MESSAGES.alreadyVerified, bonusCredited: false }
        throw badRequest(MESSAGES.verifyInvalid)
      }
      const now = new Date()
      if (row.expiresAt <= now) throw badRequest(MESSAGES.verifyInvalid)
      const outcome = await tx(db, async (q) => {
        // The user's row first: on PostgreSQL two links of one account opened at once queue on its
        // lock here, instead of each claiming its own link and then waiting for the other's (a deadlock).
        await store.markEmailVerified(q, row.userId, now)
        // A used link: the unit is rolled back (the mark above with it).
        if (!(await verifyLinks.claim(q, row.id, now))) throw LINK_USED
        await verifyLinks.expireWhere(q, eq(emailVerifications.userId, row.userId), now)
        return creditWelcomeBonus(q, row.userId, now)
      }).catch((e) => {
        if (e === LINK_USED) return null
        throw e
      })
      if (outcome === null) return { message: MESSAGES.alreadyVerified, bonusCredited: false }
      if (outcome) console.log(`[auth] user ${row.userId} confirmed the e-mail; welcome bonus credited`)
      return { message: MESSAGES.verifyDone, bonusCredited: outcome }
    },

    /** "Send the letter again" from the app's banner; limited like reset letters. */
    async resendVerification(userId: string, ip: string) {
      const user = await store.userById(userId)
      if (!user) throw unauthorized()
      if (user.emailVerifiedAt) throw badRequest(MESSAGES.alreadyVerified)
      await limit('verify', ip, user.emailNormalized)
      await sendVerification(user)
      return { message: `Письмо со ссылкой для подтверждения отправлено на ${user.email}` }
    },

    /** Same answer whether or not the account exists; the letter goes out in the background. */
    async forgotPassword(input: { email: string }, ip: string) {
      const email = input.email.trim()
      if (!email) throw badRequest(MESSAGES.enterEmail)
      const normalized = normalizeEmail(email)
      await limit('forgot', ip, normalized)
      checkEmail(email)
      const user = await store.userByEmail(normalized)
      if (user) {
        const { token } = await write(db, (q) => resetLinks.issue(q, { userId: user.id }))
        const link = `${config.publicUrl}/reset-password/${token}`
        mailer.send(passwordResetLetter(user.email, link)).catch((e) => {
          console.error(`[mail] password reset letter for user ${user.id} failed:`, (e as Error).message)
        })
      }
      return { message: MESSAGES.resetSent }
    },

    async resetPassword(input: { token: string; password: string }) {
      if (!input.token || !input.password) throw badRequest(MESSAGES.fillAll)
      if (input.password.length < 6) throw badRequest(MESSAGES.passwordMin6)
      if (input.password.length > MAX_PASSWORD) throw badRequest(MESSAGES.passwordTooLong)
      const row = await resetLinks.find(db, input.token)
      const now = new Date()
      if (!row || !resetLinks.usable(row, now)) throw badRequest(MESSAGES.resetInvalid)
      const passwordHash = await hashPassword(input.password)
      // A used link rolls the whole unit back, the new password with it.
      await tx(db, async (q) => {
        // The user's row first: two links of one account used at once queue on its lock (see verifyEmail).
        await store.setPassword(q, row.userId, passwordHash, now)
        if (!(await resetLinks.claim(q, row.id, now))) throw badRequest(MESSAGES.resetInvalid)
        await resetLinks.expireWhere(q, eq(passwordResets.userId, row.userId), now)
        // Whoever knew the old password loses every session.
        await store.revokeAllForUser(q, row.userId, now)
      })
      const user = await store.userById(row.userId)
      if (user)
        mailer.send(passwordChangedLetter(user.email, `${config.publicUrl}/forgot-password`)).catch((e) => {
          console.error(`[mail] password changed notice for user ${user.id} failed:`, (e as Error).message)
        })
      return { message: MESSAGES.resetDone }
    },
  }
}

export type AuthService = ReturnType<typeof authService>
