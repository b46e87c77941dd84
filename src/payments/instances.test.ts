// Several instances on one database: the same payment settled by all of them at the same moment
// credits once, and every one of them answers normally. Each "instance" is its own payments service
// (its own in-process lookup de-duplication) over the database; on PostgreSQL their units run on
// separate pooled connections, so the conditional UPDATE really races.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { and, count, eq } from 'drizzle-orm'
import { users } from '../auth/schema'
import { loadConfig } from '../config'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { newId } from '../lib/crypto'
import { ledgerEntries } from '../money'
import { openTestDatabase } from '../test-support/database'
import { createFakeYooKassa } from './fake'
import { payments } from './schema'
import { paymentsService } from './service'
import { createYooKassaClient } from './yookassa'

const SHOP = 'shop-3'
const dataDir = mkdtempSync(join(tmpdir(), 'payments-instances-'))
const config = loadConfig({ DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40), PUBLIC_URL: 'https://gw.example.ru', PAYMENT_RECONCILE_AFTER_SEC: '1' })

let db: Db
let close: () => Promise<void>
beforeAll(async () => {
  ;({ db, close } = await openTestDatabase())
})
afterAll(async () => {
  await close()
  rmSync(dataDir, { recursive: true, force: true })
})

function provider() {
  const fake = createFakeYooKassa({ shopId: SHOP, secretKey: 'k' })
  const client = createYooKassaClient({ apiUrl: 'http://yookassa.local/v3', shopId: SHOP, secretKey: 'k', fetch: (url, init) => fake.fetch(new Request(url, init)) })
  return { fake, client }
}

async function customer() {
  const id = newId()
  const now = new Date()
  await write(db, (q) =>
    q.insert(users).values({ id, email: `${id}@example.ru`, emailNormalized: `${id}@example.ru`, passwordHash: 'x', balanceMicros: 50_000_000, createdAt: now, updatedAt: now }),
  )
  return { id, email: `${id}@example.ru` }
}

async function books(userId: string) {
  const [u] = await db.select({ balance: users.balanceMicros }).from(users).where(eq(users.id, userId))
  const [l] = await db
    .select({ n: count() })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.userId, userId), eq(ledgerEntries.type, 'topup')))
  return { balance: u!.balance, topups: l!.n }
}

describe('three instances, one payment', () => {
  test('the same notification reaching three instances at once is accepted by each and credits once', async () => {
    const { fake, client } = provider()
    const instances = [0, 1, 2].map(() => paymentsService({ db, config }, { client, test: null }))
    const user = await customer()
    const created = await instances[0]!.create({ ...user, teamId: null, teamName: null }, 500, undefined)
    const [row] = await db.select().from(payments).where(eq(payments.id, created.id))
    fake.pay(row!.providerPaymentId!)

    const body = { event: 'payment.succeeded', object: { id: row!.providerPaymentId! } }
    expect(await Promise.all(instances.map((s) => s.notification(body, '185.71.76.5')))).toEqual(['accepted', 'accepted', 'accepted'])
    // The lookups run behind the answers; the return page's polls settle the same payment at once too.
    const seen = await Promise.all(instances.map((s) => s.get({ userId: user.id, teamId: null }, created.id)))
    expect(seen.map((p) => p.status)).toEqual(['succeeded', 'succeeded', 'succeeded'])
    await Bun.sleep(100)
    expect(await books(user.id)).toEqual({ balance: 550_000_000, topups: 1 })
  })

  test('reconciliation on three instances at once settles a lost payment once', async () => {
    const { fake, client } = provider()
    const instances = [0, 1, 2].map(() => paymentsService({ db, config }, { client, test: null }))
    const user = await customer()
    const created = await instances[1]!.create({ ...user, teamId: null, teamName: null }, 300, undefined)
    const [row] = await db.select().from(payments).where(eq(payments.id, created.id))
    fake.pay(row!.providerPaymentId!)
    const later = new Date(Date.now() + 5_000)
    const settled = await Promise.all(instances.map((s) => s.reconcile(later)))
    expect(settled.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1)
    expect(await books(user.id)).toEqual({ balance: 350_000_000, topups: 1 })
  })

  test('a test-page payment created on one instance is paid through another', async () => {
    const first = paymentsService({ db, config: { ...config, yookassaShopId: null, yookassaSecretKey: null } })
    const second = paymentsService({ db, config: { ...config, yookassaShopId: null, yookassaSecretKey: null } })
    const user = await customer()
    const created = await first.create({ ...user, teamId: null, teamName: null }, 1000, undefined)
    const providerId = new URL(created.confirmationUrl).pathname.split('/').pop()!
    // The second instance never saw it: the page still shows it, a poll does not cancel it, paying credits.
    expect((await second.test!.view(providerId)).status).toBe('pending')
    expect((await second.get({ userId: user.id, teamId: null }, created.id)).status).toBe('pending')
    expect(await second.test!.complete(providerId, 'pay')).toMatchObject({ status: 'succeeded' })
    expect(await books(user.id)).toEqual({ balance: 1_050_000_000, topups: 1 })
  })
})
