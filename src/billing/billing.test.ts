import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { client, registerUser, startServer, type TestServer } from '../test-support/server'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.stop())

describe('balance and transactions', () => {
  test('a new account holds the 50 RUB welcome bonus as one ledger row', async () => {
    const { accessToken, api } = await registerUser(server.url)
    const balance = await api.get('/api/billing/balance', accessToken)
    expect(balance.status).toBe(200)
    // No requests yet: the low-balance level is 100 default typical requests (0.20 ₽ each).
    expect(balance.body).toEqual({ success: true, data: { balance: 50, lowBalanceThreshold: 20, isLow: false, alertThreshold: null } })

    const list = await api.get('/api/billing/transactions?limit=50', accessToken)
    expect(list.status).toBe(200)
    expect(list.body.data).toHaveLength(1)
    const [tx] = list.body.data
    expect(tx).toMatchObject({ amount: '+50.00', balanceAfter: 50, type: 'bonus', description: 'Приветственный бонус' })
    expect(tx.id).toBeString()
    expect(Number.isNaN(Date.parse(tx.createdAt))).toBe(false)
  })

  test('limit defaults to 50 and is validated', async () => {
    const { accessToken, api } = await registerUser(server.url)
    expect((await api.get('/api/billing/transactions', accessToken)).status).toBe(200)
    for (const bad of ['abc', '0', '-1', '1.5', '100000']) {
      const res = await api.get(`/api/billing/transactions?limit=${bad}`, accessToken)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ success: false, error: 'limit должен быть целым числом от 1 до 500' })
    }
  })

  test('both need a session', async () => {
    const api = client(server.url)
    for (const path of ['/api/billing/balance', '/api/billing/transactions']) {
      const res = await api.get(path)
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ success: false, error: 'Требуется авторизация' })
    }
  })
})

describe('WELCOME_BONUS_RUB', () => {
  test('a configured bonus is credited exactly, and 0 writes no row', async () => {
    const odd = await startServer({ WELCOME_BONUS_RUB: '12.345678' })
    const none = await startServer({ WELCOME_BONUS_RUB: '0' })
    try {
      const a = await registerUser(odd.url)
      expect(a.user.balance).toBe(12.345678)
      const txs = (await a.api.get('/api/billing/transactions', a.accessToken)).body.data
      expect(txs.map((t: any) => t.amount)).toEqual(['+12.345678'])

      const b = await registerUser(none.url)
      expect(b.user.balance).toBe(0)
      expect((await b.api.get('/api/billing/transactions', b.accessToken)).body.data).toEqual([])
    } finally {
      await odd.stop()
      await none.stop()
    }
  })
})
