import { expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { openDatabase, runMigrations } from '../db/client'
import { users } from '../auth/schema'
import { postMovement } from './ledger'
import { HoldRefused, keyOpenHoldsMicros, placeHold, releaseReservationsAtStartup, releaseStaleHolds, settleHold, type UsageFacts } from './holds'

function freshDb(balanceMicros: number) {
  const { db } = openDatabase(':memory:')
  runMigrations(db)
  const now = new Date()
  db.insert(users).values({ id: 'u1', email: 'a@b.ru', emailNormalized: 'a@b.ru', passwordHash: 'x', createdAt: now, updatedAt: now }).run()
  postMovement(db, { userId: 'u1', type: 'bonus', amountMicros: balanceMicros, description: 'bonus' })
  const account = () => db.select({ balance: users.balanceMicros, held: users.heldMicros }).from(users).where(eq(users.id, 'u1')).get()!
  return { db, account }
}

const facts: UsageFacts = {
  endpoint: 'chat', model: 'openai/gpt-4o', promptTokens: 10, completionTokens: 5, totalTokens: 15,
  upstreamCostUsd: null, upstreamId: null, status: 'success', error: null, durationMs: 1, stream: false,
}

test('holds reserve against the balance; the stale-hold sweep gives back only old ones, once', async () => {
  const { db, account } = freshDb(1_000_000)
  const old = await placeHold(db, { userId: 'u1', apiKeyId: null, amountMicros: 600_000 })
  await expect(placeHold(db, { userId: 'u1', apiKeyId: null, amountMicros: 500_000 })).rejects.toBeInstanceOf(HoldRefused)
  expect(account()).toEqual({ balance: 1_000_000, held: 600_000 })
  const cutoff = new Date(Date.now() + 5)
  await Bun.sleep(10)
  const young = await placeHold(db, { userId: 'u1', apiKeyId: null, amountMicros: 300_000 })
  expect(await releaseStaleHolds(db, cutoff)).toBe(1)
  expect(account()).toEqual({ balance: 1_000_000, held: 300_000 })
  // The swept hold is closed: settling it later charges nothing; the young one settles normally.
  expect(await settleHold(db, old, 100_000, facts)).toBeNull()
  expect(await settleHold(db, young, 100_000, facts)).toEqual({ chargedMicros: 100_000, lowBalance: undefined })
  expect(account()).toEqual({ balance: 900_000, held: 0 })
  expect(await releaseStaleHolds(db, new Date(Date.now() + 1000))).toBe(0)
})

test('a key’s open holds count against its limit until they close; startup clears recorded reservations', async () => {
  const { db, account } = freshDb(10_000_000)
  const keyLimit = { limitMicros: 1_000_000, spentMicros: 0 }
  db.run('insert into api_keys (id, user_id, name, key_prefix, key_hash, created_at) values (\'k1\', \'u1\', \'k\', \'sk-gw-\', \'h\', 0)')
  const b = await placeHold(db, { userId: 'u1', apiKeyId: 'k1', amountMicros: 700_000, keyLimit })
  expect(keyOpenHoldsMicros(db, 'k1')).toBe(700_000)
  await expect(placeHold(db, { userId: 'u1', apiKeyId: 'k1', amountMicros: 400_000, keyLimit })).rejects.toMatchObject({ reason: 'key_limit' })
  expect(await settleHold(db, b, 0, facts)).toEqual({ chargedMicros: 0, lowBalance: undefined })
  expect(keyOpenHoldsMicros(db, 'k1')).toBe(0)
  expect(account()).toEqual({ balance: 10_000_000, held: 0 })
  // What a crash leaves: a recorded reservation with no request behind it.
  db.run("update users set held_micros = 700000 where id = 'u1'")
  expect(releaseReservationsAtStartup(db)).toBe(1)
  expect(account()).toEqual({ balance: 10_000_000, held: 0 })
})
