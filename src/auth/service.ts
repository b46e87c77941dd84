// Accounts and sessions. Access JWTs are signed by the route layer (the jwt plugin lives there);
// everything else — passwords, refresh-token rotation, resets, rate limits — happens here.
import type { Config } from '../config'
import type { Db } from '../db/client'
import { postMovement } from '../billing/ledger'
import { newId, randomToken, sha256 } from '../lib/crypto'
import { AppError, badRequest, conflict, isUniqueViolation, unauthorized } from '../lib/errors'
import { microsToRub, rubToMicros } from '../lib/money'
import { consume, type Rule } from '../lib/rate-limit'
import type { Mailer } from '../mail/service'
import { passwordChangedLetter, passwordResetLetter } from '../mail/templates'
import type { UserRow } from './schema'
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
} as const

/** Per-IP and per-e-mail budgets; generous for people, tight for scripts. */
export const RATE_RULES = {
  login: { ip: { limit: 30, windowSec: 15 * 60 }, email: { limit: 10, windowSec: 15 * 60 } },
  register: { ip: { limit: 10, windowSec: 3600 }, email: { limit: 5, windowSec: 3600 } },
  forgot: { ip: { limit: 10, windowSec: 3600 }, email: { limit: 3, windowSec: 3600 } },
} satisfies Record<string, { ip: Rule; email: Rule }>

export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000
const WELCOME_BONUS_DESCRIPTION = 'Приветственный бонус'
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const MAX_PASSWORD = 256

// Argon2id with OWASP's recommended minimum (19 MiB, t=2) keeps a login around tens of milliseconds.
const hashPassword = (password: string) =>
  Bun.password.hash(password, { algorithm: 'argon2id', memoryCost: 19456, timeCost: 2 })

export type Deps = { db: Db; config: Config; mailer: Mailer }
export type PublicUser = ReturnType<ReturnType<typeof authService>['toPublic']>

export function authService({ db, config, mailer }: Deps) {
  const store = authStore(db)
  // Compared against when the e-mail is unknown, so a login takes as long either way.
  const dummyHash = hashPassword(randomToken())

  const normalizeEmail = (email: string) => email.trim().toLowerCase()

  function checkEmail(email: string) {
    if (email.length > 254 || !EMAIL_RE.test(email)) throw badRequest(MESSAGES.badEmail)
  }

  function limit(action: keyof typeof RATE_RULES, ip: string, email?: string) {
    const scaled = (r: Rule) => ({ limit: r.limit * config.authRateLimitScale, windowSec: r.windowSec })
    consume(db, `${action}:ip:${ip}`, scaled(RATE_RULES[action].ip))
    if (email) consume(db, `${action}:email:${email}`, scaled(RATE_RULES[action].email))
  }

  const roleOf = (u: UserRow) => (config.adminEmails.includes(u.emailNormalized) ? 'admin' : u.role)

  function toPublic(u: UserRow) {
    return {
      id: u.id,
      email: u.email,
      role: roleOf(u) as 'user' | 'admin',
      balance: microsToRub(u.balanceMicros),
      createdAt: u.createdAt.toISOString(),
    }
  }

  /** A new refresh token; `familyId` continues an existing session, otherwise one starts. */
  function issueRefreshToken(tx: Parameters<typeof store.insertRefreshToken>[0], userId: string, familyId = newId()) {
    const token = randomToken()
    const now = new Date()
    store.insertRefreshToken(tx, {
      id: newId(),
      userId,
      familyId,
      tokenHash: sha256(token),
      createdAt: now,
      expiresAt: new Date(now.getTime() + config.refreshTokenTtlDays * 86_400_000),
    })
    return token
  }

  return {
    toPublic,

    /** The signed-in user for an access token's subject, or undefined when the account is gone. */
    userForToken(userId: string) {
      const row = store.userById(userId)
      return row && toPublic(row)
    },

    async register(input: { email: string; password: string }, ip: string) {
      const email = input.email.trim()
      if (!email || !input.password) throw badRequest(MESSAGES.fillAll)
      const normalized = normalizeEmail(email)
      limit('register', ip, normalized)
      checkEmail(email)
      if (input.password.length < 8) throw badRequest(MESSAGES.passwordMin8)
      if (input.password.length > MAX_PASSWORD) throw badRequest(MESSAGES.passwordTooLong)
      if (store.userByEmail(normalized)) throw conflict(MESSAGES.emailTaken)

      const passwordHash = await hashPassword(input.password)
      const now = new Date()
      const id = newId()
      const bonus = rubToMicros(config.welcomeBonusRub)
      try {
        // The account and its welcome bonus exist together or not at all.
        const refreshToken = db.transaction((tx) => {
          store.insertUser(tx, { id, email, emailNormalized: normalized, passwordHash, createdAt: now, updatedAt: now })
          if (bonus > 0)
            postMovement(db, { userId: id, type: 'bonus', amountMicros: bonus, description: WELCOME_BONUS_DESCRIPTION, reference: `welcome:${id}`, now })
          return issueRefreshToken(tx, id)
        })
        return { user: toPublic(store.userById(id)!), refreshToken }
      } catch (e) {
        if (isUniqueViolation(e)) throw conflict(MESSAGES.emailTaken)
        throw e
      }
    },

    async login(input: { email: string; password: string }, ip: string) {
      const email = input.email.trim()
      if (!email || !input.password) throw badRequest(MESSAGES.fillAll)
      const normalized = normalizeEmail(email)
      limit('login', ip, normalized)
      const user = store.userByEmail(normalized)
      const valid = await Bun.password.verify(input.password.slice(0, MAX_PASSWORD), user?.passwordHash ?? (await dummyHash))
      if (!user || !valid) throw new AppError(401, MESSAGES.badCredentials)
      const refreshToken = db.transaction((tx) => issueRefreshToken(tx, user.id))
      return { user: toPublic(user), refreshToken }
    },

    /** Rotates a refresh token. A replayed token revokes its whole family (the session). */
    refresh(token: string) {
      const row = token ? store.refreshTokenByHash(sha256(token)) : undefined
      if (!row) throw unauthorized(MESSAGES.sessionExpired)
      const now = new Date()
      // A deleted account's tokens are revoked with it; the lookup is the second lock on that door.
      if (row.revokedAt || row.expiresAt <= now || !store.userById(row.userId)) throw unauthorized(MESSAGES.sessionExpired)
      const next = db.transaction((tx) => (store.claimRefreshToken(tx, row.id, now) ? issueRefreshToken(tx, row.userId, row.familyId) : null))
      if (!next) {
        store.revokeFamily(row.familyId, now)
        console.warn(`[auth] refresh token reuse for user ${row.userId}; session revoked`)
        throw unauthorized(MESSAGES.sessionExpired)
      }
      return { userId: row.userId, refreshToken: next }
    },

    logout(token: string) {
      const row = token ? store.refreshTokenByHash(sha256(token)) : undefined
      if (row) store.revokeFamily(row.familyId, new Date())
    },

    /** Same answer whether or not the account exists; the letter goes out in the background. */
    forgotPassword(input: { email: string }, ip: string) {
      const email = input.email.trim()
      if (!email) throw badRequest(MESSAGES.enterEmail)
      const normalized = normalizeEmail(email)
      limit('forgot', ip, normalized)
      checkEmail(email)
      const user = store.userByEmail(normalized)
      if (user) {
        const token = randomToken()
        const now = new Date()
        store.insertPasswordReset({
          id: newId(),
          userId: user.id,
          tokenHash: sha256(token),
          createdAt: now,
          expiresAt: new Date(now.getTime() + RESET_TOKEN_TTL_MS),
        })
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
      const row = store.passwordResetByHash(sha256(input.token))
      const now = new Date()
      if (!row || row.usedAt || row.expiresAt <= now) throw badRequest(MESSAGES.resetInvalid)
      const passwordHash = await hashPassword(input.password)
      const done = db.transaction((tx) => {
        if (!store.claimPasswordReset(tx, row.id, now)) return false
        store.expireOtherResets(tx, row.userId, now)
        store.setPassword(tx, row.userId, passwordHash, now)
        // Whoever knew the old password loses every session.
        store.revokeAllForUser(tx, row.userId, now)
        return true
      })
      if (!done) throw badRequest(MESSAGES.resetInvalid)
      const user = store.userById(row.userId)
      if (user)
        mailer.send(passwordChangedLetter(user.email, `${config.publicUrl}/forgot-password`)).catch((e) => {
          console.error(`[mail] password changed notice for user ${user.id} failed:`, (e as Error).message)
        })
      return { message: MESSAGES.resetDone }
    },
  }
}

export type AuthService = ReturnType<typeof authService>
