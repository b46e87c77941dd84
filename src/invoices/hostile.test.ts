// Issue 33, points 10 and 11, over HTTP against the real server: the attacks as they were seen, and
// the books after each (every balance equals its ledger; the spoofer got nothing; the real company
// gets its money once confirmed).
// 10. A second team names an INN another team registered, issues an invoice in that company's name
//     and the company's payment (a 1C statement) is credited to it. Now: its registration waits for
//     the site admin (no invoices until confirmed), and a statement payment from that INN is never
//     credited to a team whose registration of it awaits confirmation or was rejected.
// 11. «№ 2026-0» in a statement's purpose and «2026-0» assigned by hand answer with a reason, never
//     500; amounts such as "0x3E8" and "1e3" are refused (400), not read as 1 000 ₽.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { encode1251 } from '../test-support/encodings'
import { eventually, startGateway } from '../test-support/gateway'
import { pdfText } from '../test-support/pdf'
import { freshIp, registerUser } from '../test-support/server'
import { call, type Person, teamsOn } from '../test-support/teams'
import { COMPANY_BUYER, freshCompanyInn, NPD_SELLER_ENV, type StatementDoc, statementText } from './test-fixtures'

const ADMIN_EMAIL = 'invoices-hostile-admin@example.ru'

let gw: Awaited<ReturnType<typeof startGateway>>
let teams: ReturnType<typeof teamsOn>
let admin: Person

beforeAll(async () => {
  gw = await startGateway({ ADMIN_EMAILS: ADMIN_EMAIL, ...NPD_SELLER_ENV })
  teams = teamsOn(gw.url, gw.server.dataDir)
  admin = await registerUser(gw.url, ADMIN_EMAIL)
})
afterAll(() => gw.stop())

const api = (method: string, path: string, who: Person, body?: unknown) => call(gw.url, method, path, { token: who.accessToken, body })

let orderNumber = 7000
/** A payment order from the company with `inn` into the seller's account. */
const payment = (inn: string, amount: string, purpose: string): StatementDoc => ({
  number: String(++orderNumber),
  amount,
  purpose,
  payer: { name: COMPANY_BUYER.name, inn, kpp: COMPANY_BUYER.kpp, account: '40702810310000000042' },
})

/** The site admin's upload of a Windows-1251 statement (multipart, field `file`). */
async function importStatement(docs: StatementDoc[] | Uint8Array) {
  const form = new FormData()
  const bytes = docs instanceof Uint8Array ? docs : encode1251(statementText(docs))
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), 'kl_to_1c.txt')
  const res = await fetch(`${gw.url}/api/admin/bank-statements`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${admin.accessToken}`, 'x-forwarded-for': freshIp() },
  })
  return { status: res.status, body: (await res.json()) as any }
}

const details = (inn: string, name = COMPANY_BUYER.name) => ({ inn, kpp: COMPANY_BUYER.kpp, name, address: COMPANY_BUYER.address, email: `buh-${inn}@example.ru` })

async function saveCompany(who: Person, teamId: string, inn: string, name?: string) {
  const res = await api('PUT', `/api/teams/${teamId}/company`, who, details(inn, name))
  expect(res.status).toBe(200)
  return res.body.data as { inn: string; innConfirmation: string }
}

const teamBalance = async (teamId: string) => Number((await gw.read<{ b: number }>('select balance_micros as b from teams where id = ?', teamId))[0]!.b)
const invoiceCount = async (teamId: string) => Number((await gw.read<{ n: number }>('select count(*) as n from invoices where team_id = ?', teamId))[0]!.n)

/** Every team's and every person's balance equals the sum of its ledger rows. */
async function expectBooksBalanced() {
  const teamRows = await gw.read<{ id: string; balance: number; ledger: number }>(
    'select t.id, t.balance_micros as balance, coalesce((select sum(l.amount_micros) from ledger_entries l where l.team_id = t.id), 0) as ledger from teams t',
  )
  const userRows = await gw.read<{ id: string; balance: number; ledger: number }>(
    'select u.id, u.balance_micros as balance, coalesce((select sum(l.amount_micros) from ledger_entries l where l.user_id = u.id and l.team_id is null), 0) as ledger from users u',
  )
  const off = [...teamRows, ...userRows].filter((r) => Number(r.balance) !== Number(r.ledger))
  expect(off).toEqual([])
  expect(teamRows.length).toBeGreaterThan(0)
}

describe('10. another company’s INN cannot be used to take its money', () => {
  test('the attack as seen: the spoofer’s registration waits for the admin, issues no invoice, and the company’s payment goes to the company', async () => {
    const inn = freshCompanyInn()
    const real = await teams.create('ООО Ромашка (настоящая)')
    const spoofer = await teams.create('Самозванец')
    expect(await saveCompany(real.owner, real.team.id, inn)).toMatchObject({ inn, innConfirmation: 'not_needed' })
    const realInvoice = (await api('POST', `/api/teams/${real.team.id}/invoices`, real.owner, { amountRub: 7000 })).body.data

    // The spoofer names the same INN: stored, but awaiting the site admin.
    expect(await saveCompany(spoofer.owner, spoofer.team.id, inn, 'ООО «Ромашка»')).toMatchObject({ inn, innConfirmation: 'pending' })
    expect((await api('GET', `/api/teams/${spoofer.team.id}/company`, spoofer.owner)).body.data.company).toMatchObject({ inn, innConfirmation: 'pending' })
    const refused = await api('POST', `/api/teams/${spoofer.team.id}/invoices`, spoofer.owner, { amountRub: 7000 })
    expect(refused.status).toBe(409)
    expect(refused.body).toEqual({
      success: false,
      error: `ИНН ${inn} уже указан в реквизитах другой команды. Счета на эту компанию можно будет выставлять после подтверждения администратором сервиса`,
    })
    expect(await invoiceCount(spoofer.team.id)).toBe(0)
    // Saving again (a new address, the same INN) is no way out of the wait.
    expect(await saveCompany(spoofer.owner, spoofer.team.id, inn, 'ООО «Ромашка» (новый адрес)')).toMatchObject({ innConfirmation: 'pending' })
    expect((await api('POST', `/api/teams/${spoofer.team.id}/invoices`, spoofer.owner, { amountRub: 7000 })).status).toBe(409)

    // The site admin sees the conflict; nobody else may see or decide it.
    const conflicts = (await api('GET', '/api/admin/inn-conflicts', admin)).body.data
    expect(conflicts.find((c: any) => c.inn === inn)).toEqual({
      inn,
      registrations: [
        expect.objectContaining({ teamId: real.team.id, teamName: 'ООО Ромашка (настоящая)', first: true, innConfirmation: 'not_needed' }),
        expect.objectContaining({ teamId: spoofer.team.id, teamName: 'Самозванец', first: false, innConfirmation: 'pending', innReviewedAt: null }),
      ],
    })
    expect((await api('GET', '/api/admin/inn-conflicts', spoofer.owner)).status).toBe(403)
    expect((await api('POST', `/api/admin/inn-registrations/${spoofer.team.id}/confirm`, spoofer.owner, { inn })).status).toBe(403)
    expect((await call(gw.url, 'POST', `/api/admin/inn-registrations/${spoofer.team.id}/confirm`, { body: { inn } })).status).toBe(401)

    // The company pays its invoice: credited to the company, once; the spoofer gets nothing.
    const spooferBefore = await teamBalance(spoofer.team.id)
    const realBefore = await teamBalance(real.team.id)
    const imported = await importStatement([payment(inn, '7000.00', realInvoice.purpose)])
    expect(imported.status).toBe(200)
    expect(imported.body.data.credited).toEqual([expect.objectContaining({ invoice: realInvoice.number, amountRub: 7000, teamId: real.team.id })])
    expect(await teamBalance(real.team.id)).toBe(realBefore + 7_000_000_000)
    expect(await teamBalance(spoofer.team.id)).toBe(spooferBefore)
    await expectBooksBalanced()
  })

  test('a statement payment is never credited to a team whose registration of the payer’s INN awaits confirmation or was rejected', async () => {
    const inn = freshCompanyInn()
    const real = await teams.create('Настоящая компания')
    const spoofer = await teams.create('Подмена ИНН')
    await saveCompany(real.owner, real.team.id, inn)
    expect(await saveCompany(spoofer.owner, spoofer.team.id, inn)).toMatchObject({ innConfirmation: 'pending' })
    // Confirmed once (by mistake), the spoofer issues an invoice on the INN, then leaves it and comes
    // back: a changed INN is checked again, so the invoice now belongs to a registration that waits.
    const confirmed = await api('POST', `/api/admin/inn-registrations/${spoofer.team.id}/confirm`, admin, { inn })
    expect(confirmed.body.data).toMatchObject({ teamId: spoofer.team.id, innConfirmation: 'confirmed', first: false, innReviewedAt: expect.any(String) })
    const invoice = (await api('POST', `/api/teams/${spoofer.team.id}/invoices`, spoofer.owner, { amountRub: 7000 })).body.data
    expect(invoice.buyer.inn).toBe(inn)
    expect(await saveCompany(spoofer.owner, spoofer.team.id, freshCompanyInn())).toMatchObject({ innConfirmation: 'not_needed' })
    expect(await saveCompany(spoofer.owner, spoofer.team.id, inn)).toMatchObject({ innConfirmation: 'pending' })

    const before = await teamBalance(spoofer.team.id)
    const imported = await importStatement([payment(inn, '7000.00', invoice.purpose)])
    expect(imported.status).toBe(200)
    expect(imported.body.data.credited).toEqual([])
    const waiting = imported.body.data.unmatched.find((u: any) => u.number === invoice.number)
    expect(waiting).toMatchObject({
      status: 'unmatched',
      reason: 'inn_unconfirmed',
      reasonText: 'ИНН плательщика ждёт подтверждения администратора у команды, выставившей счёт',
      payerInn: inn,
      amountRub: 7000,
    })
    expect(await teamBalance(spoofer.team.id)).toBe(before)
    expect((await api('GET', `/api/teams/${spoofer.team.id}/invoices/${invoice.id}`, spoofer.owner)).body.data.status).toBe('issued')
    // Nor by the admin's hand while it waits: assigning it, or marking the invoice paid, says why.
    const assigned = await api('POST', `/api/admin/bank-payments/${waiting.id}/assign`, admin, { invoice: invoice.number })
    expect(assigned.status).toBe(409)
    expect(assigned.body.error).toBe(`ИНН ${inn} у команды, выставившей счёт, ждёт подтверждения: сначала подтвердите его в разделе «Один ИНН у нескольких команд»`)
    expect((await api('POST', `/api/admin/invoices/${invoice.id}/mark-paid`, admin)).status).toBe(409)
    expect((await api('GET', '/api/admin/bank-payments', admin)).body.data.find((p: any) => p.id === waiting.id)).toMatchObject({ status: 'unmatched' })

    // Rejected: the next payment from that INN on the invoice waits too, with its reason.
    const rejected = await api('POST', `/api/admin/inn-registrations/${spoofer.team.id}/reject`, admin, { inn })
    expect(rejected.body.data).toMatchObject({ innConfirmation: 'rejected' })
    const second = await importStatement([payment(inn, '7000.00', invoice.purpose)])
    expect(second.body.data.credited).toEqual([])
    expect(second.body.data.unmatched.map((u: any) => [u.number, u.reason])).toEqual([[invoice.number, 'inn_rejected']])
    const stillRejected = await api('POST', `/api/admin/bank-payments/${waiting.id}/assign`, admin, { invoice: invoice.number })
    expect(stillRejected.body.error).toBe(`ИНН ${inn} у команды, выставившей счёт, отклонён администратором: зачислить ей эти деньги нельзя`)
    // Saving the same INN again keeps the rejection.
    expect(await saveCompany(spoofer.owner, spoofer.team.id, inn)).toMatchObject({ innConfirmation: 'rejected' })
    expect((await api('POST', `/api/teams/${spoofer.team.id}/invoices`, spoofer.owner, { amountRub: 7000 })).body.error).toBe(
      `Администратор сервиса не подтвердил ИНН ${inn} для этой команды: счета на эту компанию выставлять нельзя`,
    )
    expect(await teamBalance(spoofer.team.id)).toBe(before)
    expect(Number((await gw.read<{ n: number }>("select count(*) as n from ledger_entries where team_id = ? and type = 'topup'", spoofer.team.id))[0]!.n)).toBe(0)
    const audit = JSON.stringify((await api('GET', `/api/teams/${spoofer.team.id}/audit`, spoofer.owner)).body.data)
    expect(audit).toContain('company.inn_confirmed')
    expect(audit).toContain('company.inn_rejected')
    await expectBooksBalanced()
  })

  test('the spoofer came first: the real company waits, is confirmed, then gets its money; the spoofer, rejected, gets nothing', async () => {
    const inn = freshCompanyInn()
    const spoofer = await teams.create('Первый самозванец')
    const real = await teams.create('Ромашка, пришедшая второй')
    expect(await saveCompany(spoofer.owner, spoofer.team.id, inn)).toMatchObject({ innConfirmation: 'not_needed' })
    const spooferInvoice = (await api('POST', `/api/teams/${spoofer.team.id}/invoices`, spoofer.owner, { amountRub: 7000 })).body.data
    expect(await saveCompany(real.owner, real.team.id, inn)).toMatchObject({ innConfirmation: 'pending' })
    expect((await api('POST', `/api/teams/${real.team.id}/invoices`, real.owner, { amountRub: 7000 })).status).toBe(409)

    // A decision on an INN the team no longer names, a team without details, a body without the INN: refused.
    expect((await api('POST', `/api/admin/inn-registrations/${real.team.id}/confirm`, admin, { inn: freshCompanyInn() })).body).toEqual({
      success: false,
      error: 'Команда уже изменила реквизиты: обновите список',
    })
    expect((await api('POST', `/api/admin/inn-registrations/${(await teams.create()).team.id}/confirm`, admin, { inn })).status).toBe(404)
    expect((await api('POST', `/api/admin/inn-registrations/${real.team.id}/confirm`, admin, {})).status).toBe(400)

    const confirmed = await api('POST', `/api/admin/inn-registrations/${real.team.id}/confirm`, admin, { inn })
    expect(confirmed.status).toBe(200)
    expect(confirmed.body.data).toMatchObject({ teamId: real.team.id, innConfirmation: 'confirmed' })
    expect((await api('POST', `/api/admin/inn-registrations/${real.team.id}/confirm`, admin, { inn })).body.error).toBe('ИНН этой команды уже подтверждён')
    // Decided: off the default list (only what waits), still on the full one.
    expect((await api('GET', '/api/admin/inn-conflicts', admin)).body.data.find((c: any) => c.inn === inn)).toBeUndefined()
    const all = (await api('GET', '/api/admin/inn-conflicts?status=all', admin)).body.data.find((c: any) => c.inn === inn)
    expect(all.registrations.map((r: any) => [r.teamId, r.innConfirmation, r.first])).toEqual([
      [spoofer.team.id, 'not_needed', true],
      [real.team.id, 'confirmed', false],
    ])
    // The admin works out who is real: the first registrant can be rejected too.
    expect((await api('POST', `/api/admin/inn-registrations/${spoofer.team.id}/reject`, admin, { inn })).body.data).toMatchObject({ innConfirmation: 'rejected', first: true })

    const realInvoice = await api('POST', `/api/teams/${real.team.id}/invoices`, real.owner, { amountRub: 7000 })
    expect(realInvoice.status).toBe(201)
    const realBefore = await teamBalance(real.team.id)
    const spooferBefore = await teamBalance(spoofer.team.id)
    // The company pays its own invoice, and — tricked — the spoofer's as well.
    const imported = await importStatement([payment(inn, '7000.00', realInvoice.body.data.purpose), payment(inn, '7000.00', spooferInvoice.purpose)])
    expect(imported.body.data.credited).toEqual([expect.objectContaining({ invoice: realInvoice.body.data.number, teamId: real.team.id, amountRub: 7000 })])
    expect(imported.body.data.unmatched).toEqual([expect.objectContaining({ number: spooferInvoice.number, reason: 'inn_rejected' })])
    expect(await teamBalance(real.team.id)).toBe(realBefore + 7_000_000_000)
    expect(await teamBalance(spoofer.team.id)).toBe(spooferBefore)
    expect((await api('POST', `/api/teams/${spoofer.team.id}/invoices`, spoofer.owner, { amountRub: 7000 })).status).toBe(409)
    await expectBooksBalanced()
  })

  test('nor is the company named on the waiting team’s documents: its act goes to the team', async () => {
    const inn = freshCompanyInn()
    const real = await teams.create('Компания с актами')
    const spoofer = await teams.create('Команда без подтверждения')
    await saveCompany(real.owner, real.team.id, inn)
    expect(await saveCompany(spoofer.owner, spoofer.team.id, inn)).toMatchObject({ innConfirmation: 'pending' })
    await teams.topUp(spoofer.owner, spoofer.team.id, 100)
    const key = await teams.key(spoofer.owner, spoofer.team.id)
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4', max_tokens: 20, messages: [{ role: 'user', content: 'привет' }] }),
    })
    expect(res.status).toBe(200)
    await res.text()
    const act = await eventually(async () => (await api('GET', `/api/teams/${spoofer.team.id}/documents`, spoofer.owner)).body.data.find((d: any) => d.kind === 'act'))
    const pdf = await fetch(act.pdfUrl, { headers: { authorization: `Bearer ${spoofer.owner.accessToken}`, 'x-forwarded-for': freshIp() } })
    expect(pdf.status).toBe(200)
    const text = await pdfText(new Uint8Array(await pdf.arrayBuffer()))
    expect(text).toContain('Команда без подтверждения')
    expect(text).not.toContain(inn)
    await expectBooksBalanced()
  })

  test('teams naming a new INN at the same instant: exactly one is first, the others wait', async () => {
    const inn = freshCompanyInn()
    const made = await Promise.all([1, 2, 3, 4].map((i) => teams.create(`Одновременно ${i}`)))
    const saved = await Promise.all(made.map(({ owner, team }) => api('PUT', `/api/teams/${team.id}/company`, owner, details(inn))))
    expect(saved.map((r) => r.status)).toEqual([200, 200, 200, 200])
    expect(saved.map((r) => r.body.data.innConfirmation).sort()).toEqual(['not_needed', 'pending', 'pending', 'pending'])
    const first = made[saved.findIndex((r) => r.body.data.innConfirmation === 'not_needed')]!
    const conflict = (await api('GET', '/api/admin/inn-conflicts', admin)).body.data.find((c: any) => c.inn === inn)
    expect(conflict.registrations).toHaveLength(4)
    expect(conflict.registrations[0]).toMatchObject({ teamId: first.team.id, first: true })
  })
})

describe('11. malformed invoice numbers and amounts answer with a reason', () => {
  test('«№ 2026-0» in a statement waits with its reason; «2026-0» assigned by hand is a 400 that says why', async () => {
    const { owner, team } = await teams.create('Нулевой номер')
    const inn = freshCompanyInn()
    await saveCompany(owner, team.id, inn)
    const invoice = (await api('POST', `/api/teams/${team.id}/invoices`, owner, { amountRub: 1000 })).body.data
    const imported = await importStatement([
      payment(inn, '1000.00', 'Оплата по счету № 2026-0. Без НДС'),
      payment(inn, '1000.00', 'Оплата по счёту №2026–000000 от 21.11.2026'),
      payment(inn, '1000.00', 'Оплата по счёту № 2026-'),
    ])
    expect(imported.status).toBe(200)
    expect(imported.body.data.credited).toEqual([])
    expect(imported.body.data.unmatched.map((u: any) => [u.reason, u.reasonText, u.number])).toEqual([
      ['bad_number', 'Номер счёта в назначении платежа указан с ошибкой: счетов с номером 0 не бывает', undefined],
      ['bad_number', 'Номер счёта в назначении платежа указан с ошибкой: счетов с номером 0 не бывает', undefined],
      ['unknown_number', 'Номер счёта не найден в назначении платежа', undefined],
    ])
    const waiting = imported.body.data.unmatched[0]
    for (const [typed, error] of [
      ['2026-0', 'Счёта с номером «2026-0» не бывает: нумерация начинается с 1, например 2026-000001'],
      ['№ 2026-0000000', 'Счёта с номером «№ 2026-0000000» не бывает: нумерация начинается с 1, например 2026-000001'],
      ['абв', 'Укажите номер счёта, например 2026-000123'],
      ['', 'Укажите номер счёта, например 2026-000123'],
      ['2026-'.repeat(20), 'Укажите номер счёта, например 2026-000123'],
    ] as const) {
      const res = await api('POST', `/api/admin/bank-payments/${waiting.id}/assign`, admin, { invoice: typed })
      expect({ typed, status: res.status, body: res.body }).toEqual({ typed, status: 400, body: { success: false, error } })
    }
    // The right number, by hand: credited once.
    const before = await teamBalance(team.id)
    expect((await api('POST', `/api/admin/bank-payments/${waiting.id}/assign`, admin, { invoice: invoice.number })).status).toBe(200)
    expect(await teamBalance(team.id)).toBe(before + 1_000_000_000)
    await expectBooksBalanced()
  })

  test('invoice amounts "0x3E8", "1e3" and other non-decimals are refused (400), not read as 1 000 ₽', async () => {
    const { owner, team } = await teams.create('Хитрые суммы')
    await saveCompany(owner, team.id, freshCompanyInn())
    const path = `/api/teams/${team.id}/invoices`
    const notNumber = 'Сумма счёта должна быть числом в рублях'
    for (const [amountRub, error] of [
      ['0x3E8', notNumber],
      ['1e3', notNumber],
      ['1E3', notNumber],
      ['1000e0', notNumber],
      ['0b1111101000', notNumber],
      ['0o1750', notNumber],
      ['Infinity', notNumber],
      ['+1000', notNumber],
      ['-1000', notNumber],
      ['1_000', notNumber],
      ['١٠٠٠', notNumber],
      ['1000.', notNumber],
      ['.5', notNumber],
      ['1,000.00', notNumber],
      ['', notNumber],
      ['1000.001', 'Сумма указывается в рублях с точностью до копейки'],
      ['999,99', 'Минимальная сумма счёта: 1 000 ₽'],
      ['1000000,01', 'Максимальная сумма счёта: 1 000 000 ₽'],
      ['99999999999999999999', 'Максимальная сумма счёта: 1 000 000 ₽'],
      [1000.001, 'Сумма указывается в рублях с точностью до копейки'],
      [true, notNumber],
      [[1000], notNumber],
    ] as const) {
      const res = await api('POST', path, owner, { amountRub })
      expect({ amountRub, status: res.status, body: res.body }).toEqual({ amountRub, status: 400, body: { success: false, error } })
    }
    expect(await invoiceCount(team.id)).toBe(0)
    // What people type, and a JSON number, still work — exactly.
    for (const [amountRub, rub] of [
      ['1 000,50', 1000.5],
      ['1\u00a0200.5', 1200.5],
      ['1000.100', 1000.1],
      [1e3, 1000],
      [1000.1, 1000.1],
    ] as const) {
      const res = await api('POST', path, owner, { amountRub })
      expect({ amountRub, status: res.status, rub: res.body.data?.amountRub }).toEqual({ amountRub, status: 201, rub })
    }
    const [sum] = await gw.read<{ s: number }>('select sum(amount_micros) as s from invoices where team_id = ?', team.id)
    expect(Number(sum!.s)).toBe(5_201_200_000)
  })

  test('statement amounts "0x3E8" and "1e3" are refused (400) and nothing is credited', async () => {
    const { owner, team } = await teams.create('Выписка с хитрой суммой')
    const inn = freshCompanyInn()
    await saveCompany(owner, team.id, inn)
    const invoice = (await api('POST', `/api/teams/${team.id}/invoices`, owner, { amountRub: 1000 })).body.data
    const before = await teamBalance(team.id)
    for (const amount of ['0x3E8', '1e3', '1000.005', 'Infinity']) {
      const res = await importStatement([payment(inn, amount, invoice.purpose)])
      expect(res.status).toBe(400)
      expect(res.body.success).toBe(false)
      expect(res.body.error).toMatch(new RegExp(`сумма «${amount.replace('.', '\\.')}» (— не число|точнее копейки)$`))
    }
    expect(await teamBalance(team.id)).toBe(before)
    expect(Number((await gw.read<{ n: number }>('select count(*) as n from bank_payments where payer_inn = ?', inn))[0]!.n)).toBe(0)
    // The same payment with its amount as banks write it: credited once.
    expect((await importStatement([payment(inn, '1000.00', invoice.purpose)])).body.data.credited).toHaveLength(1)
    expect(await teamBalance(team.id)).toBe(before + 1_000_000_000)
    await expectBooksBalanced()
  })
})
