// The only reader of process.env. Every setting is optional; the defaults give a working product.

import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { MARKUP_PERCENT, WELCOME_BONUS_RUB } from './content/terms'
import { accountError, bikError, innError, kppError, type SellerDetails, TAX_REGIMES, type TaxRegime } from './invoices/requisites'
import type { UpstreamEntry } from './upstream/kinds/types'
import { parseUpstreamsFile, UpstreamsFileError, upstreamList } from './upstream/registry'

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

/** Whether a DATABASE_URL names PostgreSQL (else it is a SQLite file or :memory:). */
export const isPostgresUrl = (url: string | undefined) => /^postgres(ql)?:\/\//i.test(url?.trim() ?? '')

/**
 * What modules need while they are loaded, before loadConfig() runs: the store (tables are built
 * for it as they are declared), this process's name and lease, the database's deadline and pool.
 * Read here once, leniently (a bad number falls back to the default); loadConfig() checks the same
 * variables strictly, so a bad value still stops the server at start with a clear message.
 */
export const PROCESS = Object.freeze({
  postgres: isPostgresUrl(process.env.DATABASE_URL),
  /** INSTANCE_ID: names this instance in logs and in the holds and leases it owns; a fresh id per start by default. */
  instanceId: process.env.INSTANCE_ID?.trim() || crypto.randomUUID(),
  /** HOLD_LEASE_MS: how long an instance vouches for its open holds (at least a second). */
  holdLeaseMs: Math.max(1000, Number(process.env.HOLD_LEASE_MS) || 30_000),
  /** DATABASE_TIMEOUT_MS: the longest a database statement may take. */
  databaseTimeoutMs: Math.max(100, Number(process.env.DATABASE_TIMEOUT_MS) || 5000),
  /** DATABASE_POOL_SIZE: PostgreSQL connections of this instance. */
  databasePoolSize: Number(process.env.DATABASE_POOL_SIZE) || 20,
  /** HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY (either case): fetch honours them, so the upstream client must know (upstream/http1.ts). */
  proxy: Object.freeze(Object.fromEntries(['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'NO_PROXY'].flatMap((n) => [n, n.toLowerCase()]).map((n) => [n, process.env[n]]))),
})

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`)
  return n
}

function decimal(env: Env, name: string, fallback: number | null, min: number): number | null {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  const n = Number(raw.replace(',', '.'))
  if (!Number.isFinite(n) || n < min) throw new ConfigError(`${name} must be a number ≥ ${min}, got "${raw}"`)
  return n
}

function url(env: Env, name: string, fallback: string | null): string | null {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  try {
    new URL(raw)
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`)
  }
  return raw.replace(/\/+$/, '')
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase()
  if (!raw) return fallback
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true
  if (['0', 'false', 'no', 'off'].includes(raw)) return false
  throw new ConfigError(`${name} must be true or false, got "${raw}"`)
}

/**
 * Reads JWT_SECRET or the secret generated once into DATA_DIR, so tokens survive restarts. With
 * PostgreSQL (several instances) it must be given: a secret generated per instance would make a
 * session signed by one instance invalid on the others.
 */
function jwtSecret(env: Env, dataDir: string): string {
  const given = env.JWT_SECRET?.trim()
  if (given) {
    if (given.length < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters')
    return given
  }
  if (isPostgresUrl(env.DATABASE_URL))
    throw new ConfigError(
      'JWT_SECRET must be set when DATABASE_URL is PostgreSQL: every instance has to sign and check sessions with the same secret (at least 32 characters, e.g. `openssl rand -base64 48`)',
    )
  const file = join(dataDir, 'jwt-secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  const secret = randomBytes(48).toString('base64url')
  writeFileSync(file, secret, { mode: 0o600 })
  return secret
}

const SELLER_VARS = ['SELLER_NAME', 'SELLER_INN', 'SELLER_TAX_REGIME', 'SELLER_ACCOUNT', 'SELLER_BANK', 'SELLER_BIK', 'SELLER_CORR_ACCOUNT', 'SELLER_ADDRESS'] as const

/**
 * The seller on invoices and acts, or null when none of its variables is set (invoice payment is
 * then not offered). A partial set is a deployment mistake: an invoice without a bank account would
 * send a company's money nowhere, so the server refuses to start and names what is missing. Digits
 * are checked as accounting software checks them (INN checksum, account keys against the BIK).
 */
function seller(env: Env): SellerDetails | null {
  const value = (name: string) => env[name]?.trim().replace(/\s+/g, ' ') ?? ''
  const given = SELLER_VARS.filter((n) => value(n))
  const kpp = value('SELLER_KPP').replaceAll(' ', '').toUpperCase() || null
  if (!given.length) {
    if (kpp) throw new ConfigError('SELLER_KPP is set without the other seller details (SELLER_NAME, SELLER_INN, …): set them all, or none')
    return null
  }
  const missing = SELLER_VARS.filter((n) => !value(n))
  if (missing.length)
    throw new ConfigError(
      `the seller's details for invoices are all or none: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing (${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} set)`,
    )
  const taxRegime = value('SELLER_TAX_REGIME').toLowerCase() as TaxRegime
  if (!TAX_REGIMES.includes(taxRegime)) throw new ConfigError(`SELLER_TAX_REGIME must be one of ${TAX_REGIMES.join(', ')}, got "${value('SELLER_TAX_REGIME')}"`)
  const inn = value('SELLER_INN')
  // The self-employed (НПД) are people: their INN has 12 digits.
  const innBad = innError(inn, taxRegime === 'npd' ? 'person' : 'any')
  if (innBad) throw new ConfigError(`SELLER_INN "${inn}" is not valid: ${innBad}`)
  if (kpp && inn.length !== 10) throw new ConfigError('SELLER_KPP is only for an organisation (a 10-digit SELLER_INN); a sole trader or a self-employed person has none')
  const kppBad = kpp && kppError(kpp)
  if (kppBad) throw new ConfigError(`SELLER_KPP "${kpp}" is not valid: ${kppBad}`)
  const bik = value('SELLER_BIK')
  const bikBad = bikError(bik)
  if (bikBad) throw new ConfigError(`SELLER_BIK "${bik}" is not valid: ${bikBad}`)
  const account = value('SELLER_ACCOUNT')
  const accountBad = accountError(account, bik, 'settlement')
  if (accountBad) throw new ConfigError(`SELLER_ACCOUNT "${account}" is not valid: ${accountBad}`)
  const corrAccount = value('SELLER_CORR_ACCOUNT')
  const corrBad = accountError(corrAccount, bik, 'correspondent')
  if (corrBad) throw new ConfigError(`SELLER_CORR_ACCOUNT "${corrAccount}" is not valid: ${corrBad}`)
  return Object.freeze({ name: value('SELLER_NAME'), inn, kpp, taxRegime, account, bank: value('SELLER_BANK'), bik, corrAccount, address: value('SELLER_ADDRESS') })
}

/**
 * The second router (FALLBACK_UPSTREAM_URL and FALLBACK_UPSTREAM_API_KEY, both or neither), used while
 * the first is down; null when not configured.
 */
function fallbackUpstream(env: Env): { baseUrl: string; apiKey: string } | null {
  const baseUrl = url(env, 'FALLBACK_UPSTREAM_URL', null)
  const apiKey = env.FALLBACK_UPSTREAM_API_KEY?.trim() || null
  if (!baseUrl !== !apiKey) throw new ConfigError('FALLBACK_UPSTREAM_URL and FALLBACK_UPSTREAM_API_KEY must be set together (or neither, for no second upstream)')
  return baseUrl && apiKey ? Object.freeze({ baseUrl, apiKey }) : null
}

/** The upstream list (UPSTREAMS_FILE read and checked here: a bad file stops the start naming the entry and the field). */
function upstreams(env: Env, openrouter: { baseUrl: string; apiKey: string | null }): readonly UpstreamEntry[] {
  const path = env.UPSTREAMS_FILE?.trim()
  let file: UpstreamEntry[] = []
  if (path) {
    let text: string
    try {
      text = readFileSync(resolve(path), 'utf8')
    } catch (e) {
      throw new ConfigError(`UPSTREAMS_FILE ${path} cannot be read: ${(e as Error).message}`)
    }
    try {
      file = parseUpstreamsFile(text, resolve(path))
    } catch (e) {
      throw e instanceof UpstreamsFileError ? new ConfigError(e.message) : e
    }
  }
  return Object.freeze(upstreamList({ openrouter, fallback: fallbackUpstream(env), file }))
}

export function loadConfig(env: Env = process.env) {
  const port = int(env, 'PORT', 3000, 0, 65535)
  const dataDir = resolve(env.DATA_DIR?.trim() || './data')
  mkdirSync(dataDir, { recursive: true })
  const nodeEnv = env.NODE_ENV?.trim() || 'development'
  const usdRubRate = decimal(env, 'USD_RUB_RATE', null, 0.0001)
  const markup = decimal(env, 'MARKUP', 1 + MARKUP_PERCENT / 100, 1)!
  const welcomeBonusRub = decimal(env, 'WELCOME_BONUS_RUB', WELCOME_BONUS_RUB, 0)!
  const referralBonusRub = decimal(env, 'REFERRAL_BONUS_RUB', 0, 0)!

  if (!!env.YOOKASSA_SHOP_ID?.trim() !== !!env.YOOKASSA_SECRET_KEY?.trim())
    throw new ConfigError('YOOKASSA_SHOP_ID and YOOKASSA_SECRET_KEY must be set together (or neither, for the test payment page)')
  const openrouter = { baseUrl: url(env, 'OPENROUTER_BASE_URL', 'https://openrouter.ai/api/v1')!, apiKey: env.OPENROUTER_API_KEY?.trim() || null }
  const isProduction = nodeEnv === 'production'
  const realPayments = !!env.YOOKASSA_SHOP_ID?.trim()
  const allowTestPayments = flag(env, 'ALLOW_TEST_PAYMENTS', false)
  // A production server that silently ran the test payment page would take "top-ups" that are no
  // money at all; running it so must be a deliberate choice, and then every page says so.
  if (isProduction && !realPayments && !allowTestPayments)
    throw new ConfigError(
      'NODE_ENV=production needs YOOKASSA_SHOP_ID and YOOKASSA_SECRET_KEY (card payments). ' + 'To run with the built-in test payment page instead, set ALLOW_TEST_PAYMENTS=true',
    )
  // Links in letters, payment return URLs and canonical links must never come from a Host header.
  if (isProduction && !env.PUBLIC_URL?.trim())
    throw new ConfigError('PUBLIC_URL is required when NODE_ENV=production (e.g. PUBLIC_URL=https://gateway.example.ru): every link that leaves the server is built from it')
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${port}`)!
  if (!/^https?:$/.test(new URL(publicUrl).protocol)) throw new ConfigError(`PUBLIC_URL must be an http(s) URL, got "${publicUrl}"`)

  return Object.freeze({
    nodeEnv,
    isProduction,
    port,
    host: env.HOST?.trim() || '0.0.0.0',
    dataDir,
    databaseUrl: env.DATABASE_URL?.trim() || join(dataDir, 'gateway.db'),
    // Read at import (PROCESS); checked here so that a bad value stops the server with its name.
    holdLeaseMs: int(env, 'HOLD_LEASE_MS', 30_000, 1000, 24 * 3600 * 1000),
    databaseTimeoutMs: int(env, 'DATABASE_TIMEOUT_MS', 5000, 100, 3_600_000),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 20, 1, 1000),
    /** Customers' uploads, generated images and article covers: storage every instance shares when there are several. */
    uploadsDir: resolve(env.UPLOADS_DIR?.trim() || dataDir),
    /** The one origin every outgoing link is built on (never the request's Host header). */
    publicUrl,
    jwtSecret: jwtSecret(env, dataDir),
    /** Lifetime of an access JWT; short, because it cannot be revoked. */
    accessTokenTtlSec: int(env, 'ACCESS_TOKEN_TTL', 15 * 60, 10, 24 * 3600),
    refreshTokenTtlDays: int(env, 'REFRESH_TOKEN_TTL_DAYS', 30, 1, 365),
    adminEmails: Object.freeze(
      (env.ADMIN_EMAILS ?? '')
        .split(',')
        .map((e) => e.trim().toLowerCase())
        .filter(Boolean),
    ),
    /** Multiplies the sign-in/registration/reset rate limits; only for test environments that share one address. */
    authRateLimitScale: int(env, 'AUTH_RATE_LIMIT_SCALE', 1, 1, 1000),
    /** Only behind a reverse proxy: take the client IP from X-Forwarded-For. */
    trustProxy: flag(env, 'TRUST_PROXY', false),
    openrouterApiKey: openrouter.apiKey,
    openrouterBaseUrl: openrouter.baseUrl,
    usdRubRate,
    /** Central Bank daily XML (windows-1251); tests point it at a local fake. */
    cbrRateUrl: url(env, 'CBR_RATE_URL', 'https://www.cbr.ru/scripts/XML_daily.asp')!,
    /** Longest wait for the upstream's answer (non-stream) or first byte, and the longest silent gap in a stream. */
    upstreamTimeoutMs: int(env, 'UPSTREAM_TIMEOUT_MS', 300_000, 100, 3_600_000),
    /**
     * Every upstream, in the order a request tries them: the routers of OPENROUTER_* (the built-in demo
     * router without a key: `apiKey` '') and FALLBACK_UPSTREAM_*, then UPSTREAMS_FILE's (upstream/registry.ts).
     */
    upstreams: upstreams(env, openrouter),
    /**
     * Each upstream's circuit breaker (per instance): over the last `windowMs`, at least `minRequests`
     * requests of which more than `failurePercent` % failed open it; requests then fail fast (or go to
     * the second upstream) for `cooldownMs`, after which a few probe requests decide whether it closes.
     */
    breaker: Object.freeze({
      windowMs: int(env, 'UPSTREAM_BREAKER_WINDOW_MS', 60_000, 1000, 3_600_000),
      minRequests: int(env, 'UPSTREAM_BREAKER_MIN_REQUESTS', 20, 1, 100_000),
      failurePercent: int(env, 'UPSTREAM_BREAKER_FAILURE_PERCENT', 50, 1, 100),
      cooldownMs: int(env, 'UPSTREAM_BREAKER_COOLDOWN_MS', 30_000, 100, 3_600_000),
    }),
    markup,
    welcomeBonusRub,
    /** Each of the two accounts gets this when a referred account first pays ≥ 500 ₽ for real (src/promo); 0 = the programme is off. */
    referralBonusRub,
    smtpUrl: url(env, 'SMTP_URL', null),
    mailFrom: env.MAIL_FROM?.trim() || 'AI Gateway <no-reply@localhost>',
    yookassaShopId: env.YOOKASSA_SHOP_ID?.trim() || null,
    yookassaSecretKey: env.YOOKASSA_SECRET_KEY?.trim() || null,
    /** ALLOW_TEST_PAYMENTS=true: the test payment page was chosen on purpose (required in production without keys). */
    allowTestPayments,
    /** Every page shows the test-payments banner: the test page was allowed explicitly and no real keys are set. */
    testPaymentsBanner: allowTestPayments && !realPayments,
    /** The welcome bonus waits for a confirmed e-mail address; false credits it at registration (development, tests). */
    requireEmailVerification: flag(env, 'REQUIRE_EMAIL_VERIFICATION', true),
    yookassaApiUrl: url(env, 'YOOKASSA_API_URL', 'https://api.yookassa.ru/v3')!,
    /** Accept payment notifications only from YooKassa's published addresses (needs TRUST_PROXY behind a proxy). */
    yookassaWebhookIpCheck: flag(env, 'YOOKASSA_WEBHOOK_IP_CHECK', nodeEnv === 'production'),
    /** A payment still pending this long is looked up at the provider, in case its notification was lost. */
    paymentReconcileAfterSec: int(env, 'PAYMENT_RECONCILE_AFTER_SEC', 600, 1, 7 * 24 * 3600),
    /** How often the reconciliation looks (cron pattern; six fields allow seconds). */
    paymentReconcileCron: env.PAYMENT_RECONCILE_CRON?.trim() || '*/2 * * * *',
    /** Auto top-up (issue 37): after a charge declined for a temporary reason (insufficient funds, …), the next try waits this long. */
    autoTopupRetrySec: int(env, 'AUTO_TOPUP_RETRY_SEC', 3600, 1, 24 * 3600),
    /** When the autopost job looks for a due slot (every minute; tests tick every second). */
    autopostCron: env.AUTOPOST_CRON?.trim() || '* * * * *',
    /** The model that writes blog articles (platform spend); another text model is used if the catalogue lacks it. */
    autopostTextModel: env.AUTOPOST_TEXT_MODEL?.trim() || 'openai/gpt-4o-mini',
    /** The Responses API's WebSocket mode: how long one connection may stay open (then a clean close). */
    responsesWsMaxAgeSec: int(env, 'RESPONSES_WS_MAX_AGE_SEC', 3600, 1, 24 * 3600),
    /** Open WebSocket connections per API key and per account, on each instance. */
    responsesWsPerKey: int(env, 'RESPONSES_WS_PER_KEY', 8, 1, 10_000),
    responsesWsPerAccount: int(env, 'RESPONSES_WS_PER_ACCOUNT', 16, 1, 10_000),
    /** The model that draws article covers; another image-output model is used if the catalogue lacks it. */
    autopostImageModel: env.AUTOPOST_IMAGE_MODEL?.trim() || 'google/gemini-2.5-flash-image',
    /** The seller on invoices and acts (SELLER_*); null: invoice payment is not offered. */
    seller: seller(env),
    /** Team webhooks may target private, loopback and link-local addresses (tests, on-premise installations). */
    allowPrivateWebhooks: flag(env, 'ALLOW_PRIVATE_WEBHOOKS', false),
    /**
     * Tests only: a file whose content (ISO time or epoch ms) is "now" for budget periods
     * (money/periods.ts), so calendar boundaries can be tested. Never honoured in production.
     */
    testClockFile: isProduction ? null : env.TEST_CLOCK_FILE?.trim() || null,
  })
}

export type Config = ReturnType<typeof loadConfig>
