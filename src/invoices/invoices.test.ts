// Paying as a company over HTTP against the real server (issue 24): company details with INN checks
// through the route, invoices (the wire contract, the PDF's text, who may download it, the letter
// with the PDF attached), the bank statement import crediting exactly once (the same file twice, and
// two instances at once), unmatched payments assigned by hand, «Отметить оплаченным», the monthly
// act equal to the month's usage ledger rows across the Moscow month boundary, refunds.
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SQL } from 'bun'
import { isPostgresUrl } from '../db/dialect'
import { createMailer } from '../mail/service'
import { invoiceLetter } from '../mail/templates'
import { encode1251 } from '../test-support/encodings'
import { eventually, startGateway } from '../test-support/gateway'
import { pdfText } from '../test-support/pdf'
import { freshIp, registerUser, startServer } from '../test-support/server'
import { startSmtp } from '../test-support/smtp'
import { call, type Person, teamsOn } from '../test-support/teams'
import { renderInvoicePdf } from './invoice-pdf'
import { COMPANY_BUYER, freshCompanyInn, NPD_SELLER, NPD_SELLER_ENV, PETROV, SOLE_TRADER_BUYER, type StatementDoc, statementText } from './test-fixtures'

const ADMIN_EMAIL = 'invoices-admin@example.ru'
const HI = { model: 'openai/gpt-4', max_tokens: 20, messages: [{ role: 'user', content: 'привет' }] }

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway
let teams: ReturnType<typeof teamsOn>
let admin: Person
let f: Awaited<ReturnType<ReturnType<typeof teamsOn>['withRoles']>>

beforeAll(async () => {
  gw = await startGateway({ ADMIN_EMAILS: ADMIN_EMAIL, ...NPD_SELLER_ENV })
  teams = teamsOn(gw.url, gw.server.dataDir)
  admin = await registerUser(gw.url, ADMIN_EMAIL)
  f = await teams.withRoles('ООО Ромашка')
})
afterAll(() => gw.stop())

const api = (method: string, path: string, who: Person, body?: unknown, base = gw.url) => call(base, method, path, { token: who.accessToken, body })

/** A download with the bearer token, as the SPA fetches it. */
async function download(url: string, who: Person | null) {
  const res = await fetch(url, { headers: { 'x-forwarded-for': freshIp(), ...(who ? { authorization: `Bearer ${who.accessToken}` } : {}) } })
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), bytes: new Uint8Array(await res.arrayBuffer()) }
}

/** The admin's upload of a statement file (multipart, field `file`). */
async function importStatement(bytes: Uint8Array, base = gw.url) {
  const form = new FormData()
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), 'kl_to_1c.txt')
  const res = await fetch(`${base}/api/admin/bank-statements`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${admin.accessToken}`, 'x-forwarded-for': freshIp() },
  })
  return { status: res.status, body: (await res.json()) as any }
}

/** A Windows-1251 statement paying what `docs` say into the seller's account. */
const statement = (docs: StatementDoc[]) => encode1251(statementText(docs))

const ROMASHKA_DETAILS = { inn: COMPANY_BUYER.inn, kpp: COMPANY_BUYER.kpp, name: COMPANY_BUYER.name, address: COMPANY_BUYER.address, email: 'buh@romashka.example.ru' }

async function teamBalance(teamId: string, who: Person = f.owner) {
  return (await api('GET', `/api/teams/${teamId}`, who)).body.data.balance as number
}

const invoiceRows = (reference: string) =>
  gw.read<{ n: number; s: number }>('select count(*) as n, coalesce(sum(amount_micros), 0) as s from ledger_entries where reference = ?', reference)

/** The PDF attached to a raw MIME letter (its base64 part). */
function attachedPdf(raw: string): Uint8Array {
  const base64 = raw
    .split('Content-Type: application/pdf')[1]!
    .split(/\r?\n\r?\n/)[1]!
    .split(/\r?\n--/)[0]!
  return Buffer.from(base64.replace(/\s+/g, ''), 'base64')
}

/** Writes to the server's database behind its back (re-dating ledger rows across a month boundary). */
async function execute(sql: string, ...params: (string | number)[]) {
  const url = gw.server.databaseUrl
  if (!isPostgresUrl(url)) {
    const db = new Database(url)
    try {
      db.query(sql).run(...params)
    } finally {
      db.close()
    }
    return
  }
  const pg = new SQL(url, { max: 1 })
  let n = 0
  await pg.unsafe(
    sql.replace(/\?/g, () => `$${++n}`),
    params,
  )
  await pg.close()
}

describe('company details', () => {
  test('INN and KPP checked through the route; owner, admin and billing only; stored and audited', async () => {
    const path = `/api/teams/${f.team.id}/company`
    expect((await api('GET', path, f.billing)).body.data).toEqual({ company: null })
    for (const [body, error] of [
      [{ ...ROMASHKA_DETAILS, inn: '7707083894' }, 'Неверный ИНН: не сходится контрольное число. Проверьте цифры'],
      [{ ...ROMASHKA_DETAILS, inn: '770708389' }, 'ИНН состоит из 10 цифр (организация) или 12 цифр (индивидуальный предприниматель)'],
      [{ ...ROMASHKA_DETAILS, inn: '772812345608', kpp: null }, 'Неверный ИНН: не сходится контрольное число. Проверьте цифры'],
      [{ ...ROMASHKA_DETAILS, inn: '77070838AB' }, 'ИНН состоит только из цифр'],
      [{ ...ROMASHKA_DETAILS, kpp: undefined }, 'Укажите КПП: у организации (ИНН из 10 цифр) он есть'],
      [{ ...ROMASHKA_DETAILS, kpp: '7736010' }, 'КПП состоит из 9 символов'],
      [{ ...ROMASHKA_DETAILS, inn: SOLE_TRADER_BUYER.inn }, 'КПП есть только у организаций: у ИП и физических лиц (ИНН из 12 цифр) его нет'],
      [{ ...ROMASHKA_DETAILS, name: '  ' }, 'Укажите полное наименование компании'],
      [{ ...ROMASHKA_DETAILS, email: 'не почта' }, 'Некорректный e-mail для документов'],
      [{ ...ROMASHKA_DETAILS, inn: 7707083893 }, 'ИНН — строка из 10 цифр (организация) или 12 цифр (ИП)'],
    ] as const) {
      const res = await api('PUT', path, f.billing, body)
      expect({ body, status: res.status, res: res.body }).toEqual({ body, status: 400, res: { success: false, error: error } })
    }
    // A sole trader: 12 digits with a valid checksum and no KPP.
    const person = await api('PUT', path, f.admin, { inn: SOLE_TRADER_BUYER.inn, name: SOLE_TRADER_BUYER.name, address: SOLE_TRADER_BUYER.address, email: 'petrov@example.ru' })
    expect(person.status).toBe(200)
    expect(person.body.data).toMatchObject({ inn: SOLE_TRADER_BUYER.inn, kpp: null })
    // A member may not; an outsider does not see the team.
    expect((await api('PUT', path, f.member, ROMASHKA_DETAILS)).status).toBe(403)
    expect((await api('GET', path, f.member)).status).toBe(403)
    expect((await api('PUT', path, await registerUser(gw.url), ROMASHKA_DETAILS)).status).toBe(404)

    const saved = await api('PUT', path, f.billing, { ...ROMASHKA_DETAILS, inn: ' 7707 083893 ', name: ' ООО   «Ромашка» ' })
    expect(saved.status).toBe(200)
    // The first team to name this INN: no confirmation needed.
    expect(saved.body.data).toEqual({ ...ROMASHKA_DETAILS, updatedAt: expect.any(String), innConfirmation: 'not_needed' })
    expect((await api('GET', path, f.owner)).body.data.company).toEqual(saved.body.data)
    const audit = (await api('GET', `/api/teams/${f.team.id}/audit`, f.owner)).body.data
    expect(JSON.stringify(audit)).toContain('company.updated')
  })
})

describe('invoices', () => {
  test('not issued without company details; 1 000 ₽ at least, 1 000 000 ₽ at most; a member may not', async () => {
    const { owner, team } = await teams.create('Без реквизитов')
    expect((await api('POST', `/api/teams/${team.id}/invoices`, owner, { amountRub: 5000 })).body).toEqual({
      success: false,
      error: 'Сначала укажите реквизиты компании: ИНН, наименование, юридический адрес и e-mail для документов',
    })
    const path = `/api/teams/${f.team.id}/invoices`
    for (const [amountRub, error] of [
      [999.99, 'Минимальная сумма счёта: 1 000 ₽'],
      [1_000_000.01, 'Максимальная сумма счёта: 1 000 000 ₽'],
      [1000.001, 'Сумма указывается в рублях с точностью до копейки'],
      ['много', 'Сумма счёта должна быть числом в рублях'],
      [null, 'Сумма счёта должна быть числом в рублях'],
    ] as const) {
      const res = await api('POST', path, f.billing, { amountRub })
      expect({ amountRub, status: res.status, body: res.body }).toEqual({ amountRub, status: 400, body: { success: false, error } })
    }
    expect((await api('POST', path, f.member, { amountRub: 1200 })).status).toBe(403)
    expect((await api('GET', path, f.member)).status).toBe(403)
    expect((await api('GET', '/api/invoices/availability', f.member)).body.data).toEqual({ enabled: true, minRub: 1000, maxRub: 1_000_000, taxRegime: 'npd' })
  })

  test('201 with the contract; the PDF has the number, both INNs, the amount in figures and words and the purpose; only to owner, admins and billing; e-mailed', async () => {
    const res = await api('POST', `/api/teams/${f.team.id}/invoices`, f.billing, { amountRub: 1200 })
    expect(res.status).toBe(201)
    const inv = res.body.data
    expect(Object.keys(inv)).toEqual(expect.arrayContaining(['id', 'number', 'amountRub', 'status', 'pdfUrl']))
    expect(inv.number).toMatch(/^\d{4}-\d{6}$/)
    expect({ amountRub: inv.amountRub, status: inv.status, pdfUrl: inv.pdfUrl }).toEqual({
      amountRub: 1200,
      status: 'issued',
      pdfUrl: `${gw.url}/api/teams/${f.team.id}/invoices/${inv.id}/pdf`,
    })
    expect((await api('GET', `/api/teams/${f.team.id}/invoices`, f.owner)).body.data.map((i: { id: string }) => i.id)).toContain(inv.id)

    const pdf = await download(inv.pdfUrl, f.billing)
    expect(pdf.status).toBe(200)
    expect(pdf.type).toBe('application/pdf')
    expect(pdf.disposition).toContain(`invoice-${inv.number}.pdf`)
    const text = await pdfText(pdf.bytes)
    for (const part of [inv.number, NPD_SELLER_ENV.SELLER_INN, COMPANY_BUYER.inn, '1 200,00', 'Одна тысяча двести рублей 00 копеек', inv.purpose, 'Без НДС'])
      expect(text).toContain(part)
    expect(inv.purpose).toContain(`№ ${inv.number}`)
    // The same bytes every time: the document never changes after issue.
    expect((await download(inv.pdfUrl, f.owner)).bytes).toEqual(pdf.bytes)
    expect((await download(inv.pdfUrl, f.admin)).status).toBe(200)
    expect((await download(inv.pdfUrl, f.member)).status).toBe(403)
    expect((await download(inv.pdfUrl, await registerUser(gw.url))).status).toBe(404)
    expect((await download(inv.pdfUrl, null)).status).toBe(401)

    // The letter to the document address carries the PDF (the outbox keeps the whole message).
    const outbox = join(gw.server.dataDir, 'outbox')
    let eml = ''
    for (let i = 0; i < 200 && !eml; i++) {
      const name = readdirSync(outbox).find((n) => n.endsWith('.json') && readFileSync(join(outbox, n), 'utf8').includes(`Счёт № ${inv.number}`))
      if (name) eml = readFileSync(join(outbox, name.replace(/\.json$/, '.eml')), 'utf8')
      else await Bun.sleep(25)
    }
    expect(eml).toContain(`To: ${ROMASHKA_DETAILS.email}`)
    expect(eml).toContain('Content-Type: application/pdf')
    expect(await pdfText(attachedPdf(eml))).toContain(inv.purpose)
  })

  test('cancel while issued (owner, admin, billing), audited; then nothing more', async () => {
    const inv = (await api('POST', `/api/teams/${f.team.id}/invoices`, f.owner, { amountRub: '1 500,50' })).body.data
    expect(inv.amountRub).toBe(1500.5)
    expect((await api('POST', `/api/teams/${f.team.id}/invoices/${inv.id}/cancel`, f.member)).status).toBe(403)
    const cancelled = await api('POST', `/api/teams/${f.team.id}/invoices/${inv.id}/cancel`, f.billing)
    expect(cancelled.body.data).toMatchObject({ id: inv.id, status: 'cancelled' })
    expect((await api('POST', `/api/teams/${f.team.id}/invoices/${inv.id}/cancel`, f.billing)).body).toEqual({ success: false, error: 'Отменить можно только неоплаченный счёт' })
    expect((await api('POST', `/api/admin/invoices/${inv.id}/mark-paid`, admin)).status).toBe(409)
    expect(JSON.stringify((await api('GET', `/api/teams/${f.team.id}/audit`, f.owner)).body.data)).toContain('invoice.cancelled')
  })
})

test('over SMTP the letter carries the PDF as an attachment', async () => {
  const smtp = await startSmtp()
  try {
    const mailer = createMailer({ smtpUrl: smtp.url, mailFrom: 'AI Gateway <no-reply@example.ru>', dataDir: gw.server.dataDir })
    const pdf = await renderInvoicePdf({
      number: '2026-000777',
      issuedAt: new Date(),
      seller: NPD_SELLER,
      buyer: COMPANY_BUYER,
      account: 'Команда',
      amountKopecks: 120_000,
      offerUrl: 'https://example.ru/public-offer',
    })
    const to = 'buh@smtp.example.ru'
    await mailer.send(
      invoiceLetter(to, {
        number: '2026-000777',
        amount: '1 200,00',
        teamName: 'Команда',
        purpose: 'Оплата по счёту № 2026-000777',
        pdf,
        filename: 'Счёт 2026-000777.pdf',
        billingLink: 'https://example.ru/app/team/documents',
      }),
    )
    const letter = await smtp.waitFor(to)
    expect(letter.raw).toContain('Content-Type: application/pdf')
    expect(await pdfText(attachedPdf(letter.raw))).toContain('Счёт на оплату № 2026-000777')
  } finally {
    await smtp.close()
  }
})

describe('the bank statement', () => {
  test('Windows-1251, three payments: one credits its invoice once, the others wait with their reasons; the same file again credits nothing', async () => {
    const inv = (await api('POST', `/api/teams/${f.team.id}/invoices`, f.billing, { amountRub: 1200 })).body.data
    const other = (await api('POST', `/api/teams/${f.team.id}/invoices`, f.billing, { amountRub: 2000 })).body.data
    const before = await teamBalance(f.team.id)
    const file = statement([
      { number: '512', amount: '1200.00', purpose: inv.purpose },
      { number: '513', amount: '1999.00', purpose: `Оплата по счету № ${other.number}. Без НДС` },
      { number: '514', amount: '700.00', purpose: 'Оплата по счету № 2026-999999. Без НДС', payer: PETROV },
    ])
    const first = await importStatement(file)
    expect(first.status).toBe(200)
    expect(first.body.data.credited).toEqual([expect.objectContaining({ invoice: inv.number, amountRub: 1200 })])
    expect(first.body.data.unmatched.map((u: any) => ({ number: u.number, amountRub: u.amountRub, reason: u.reason }))).toEqual([
      { number: other.number, amountRub: 1999, reason: 'amount_differs' },
      { number: '2026-999999', amountRub: 700, reason: 'unknown_number' },
    ])
    expect(first.body.data.unmatched[0].reasonText).toBeString()
    expect(await teamBalance(f.team.id)).toBe(before + 1200)
    expect(await invoiceRows(`invoice:${inv.id}`)).toEqual([{ n: 1, s: 1_200_000_000 }])
    const [row] = await gw.read<{ description: string; type: string; team_id: string }>(
      'select description, type, team_id from ledger_entries where reference = ?',
      `invoice:${inv.id}`,
    )
    expect(row).toEqual({ description: `Оплата по счёту № ${inv.number}`, type: 'topup', team_id: f.team.id })
    expect((await api('GET', `/api/teams/${f.team.id}/invoices/${inv.id}`, f.billing)).body.data).toMatchObject({ status: 'paid', paidRub: 1200, paidAt: expect.any(String) })
    expect(JSON.stringify((await api('GET', `/api/teams/${f.team.id}/audit`, f.owner)).body.data)).toContain('invoice.paid')

    const again = await importStatement(file)
    expect(again.body.data.credited).toEqual([])
    expect(again.body.data.alreadyImported).toBe(3)
    expect(again.body.data.unmatched).toHaveLength(2) // still waiting, listed again
    expect(await teamBalance(f.team.id)).toBe(before + 1200)
    expect(await invoiceRows(`invoice:${inv.id}`)).toEqual([{ n: 1, s: 1_200_000_000 }])

    // The admin's page: the unmatched payments; one assigned by hand to its invoice, once.
    const waiting = (await api('GET', '/api/admin/bank-payments', admin)).body.data
    const short = waiting.find((p: any) => p.number === other.number)
    expect(short).toMatchObject({ amountRub: 1999, reason: 'amount_differs', status: 'unmatched', paymentNumber: '513' })
    const assigned = await api('POST', `/api/admin/bank-payments/${short.id}/assign`, admin, { invoice: other.number })
    expect(assigned.body.data).toMatchObject({ invoice: other.number, amountRub: 1999, teamId: f.team.id })
    expect((await api('POST', `/api/admin/bank-payments/${short.id}/assign`, admin, { invoice: other.number })).status).toBe(409)
    expect(await teamBalance(f.team.id)).toBe(before + 1200 + 1999)
    expect((await api('GET', `/api/teams/${f.team.id}/invoices/${other.id}`, f.billing)).body.data).toMatchObject({ status: 'paid', paidRub: 1999 })
    // The unknown one: assigning it to a paid invoice is refused and it stays; dismissed, it leaves the list.
    const unknown = waiting.find((p: any) => p.number === '2026-999999')
    expect((await api('POST', `/api/admin/bank-payments/${unknown.id}/assign`, admin, { invoice: inv.number })).body).toEqual({
      success: false,
      error: `Счёт № ${inv.number} уже оплачен или отменён`,
    })
    expect((await api('POST', `/api/admin/bank-payments/${unknown.id}/assign`, admin, { invoice: 'абв' })).status).toBe(400)
    expect((await api('POST', `/api/admin/bank-payments/${unknown.id}/dismiss`, admin)).body.data.status).toBe('dismissed')
    expect((await api('GET', '/api/admin/bank-payments', admin)).body.data.find((p: any) => p.id === unknown.id)).toBeUndefined()
    // Not the admin's? Nothing of this answers.
    expect((await api('GET', '/api/admin/bank-payments', f.owner)).status).toBe(403)
    const form = new FormData()
    form.append('file', new Blob([file as Uint8Array<ArrayBuffer>]), 'x.txt')
    expect((await fetch(`${gw.url}/api/admin/bank-statements`, { method: 'POST', body: form, headers: { authorization: `Bearer ${f.owner.accessToken}` } })).status).toBe(403)
  })

  test('a broken file gets a Russian 400; no file neither crashes', async () => {
    const bad = await importStatement(new TextEncoder().encode('это не выписка'))
    expect(bad.status).toBe(400)
    expect(bad.body.success).toBe(false)
    expect(bad.body.error).toMatch(/[а-я]/)
    const none = await fetch(`${gw.url}/api/admin/bank-statements`, { method: 'POST', body: new FormData(), headers: { authorization: `Bearer ${admin.accessToken}` } })
    expect(none.status).toBe(400)
    expect(((await none.json()) as any).error).toBe('Приложите файл выписки в формате 1С (поле file)')
  })

  test('two instances importing the same statement at once credit once', async () => {
    const second = await startServer({ ...NPD_SELLER_ENV, ADMIN_EMAILS: ADMIN_EMAIL, DATABASE_URL: gw.server.databaseUrl })
    try {
      const inv = (await api('POST', `/api/teams/${f.team.id}/invoices`, f.billing, { amountRub: 3000 })).body.data
      const before = await teamBalance(f.team.id)
      const file = statement([{ number: '900', amount: '3000.00', purpose: inv.purpose }])
      const results = await Promise.all([importStatement(file), importStatement(file, second.url), importStatement(file), importStatement(file, second.url)])
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200])
      expect(results.flatMap((r) => r.body.data.credited)).toEqual([expect.objectContaining({ invoice: inv.number, amountRub: 3000 })])
      expect(await invoiceRows(`invoice:${inv.id}`)).toEqual([{ n: 1, s: 3_000_000_000 }])
      expect(await teamBalance(f.team.id)).toBe(before + 3000)
    } finally {
      await second.stop()
    }
  })

  test('«Отметить оплаченным» credits once, also when two admins press it at once', async () => {
    const inv = (await api('POST', `/api/teams/${f.team.id}/invoices`, f.owner, { amountRub: 1000 })).body.data
    const before = await teamBalance(f.team.id)
    const presses = await Promise.all([1, 2, 3].map(() => api('POST', `/api/admin/invoices/${inv.id}/mark-paid`, admin)))
    expect(presses.map((p) => p.status).sort()).toEqual([200, 409, 409])
    expect(presses.find((p) => p.status === 200)!.body.data).toMatchObject({ id: inv.id, status: 'paid', teamName: 'ООО Ромашка' })
    expect(await teamBalance(f.team.id)).toBe(before + 1000)
    expect(await invoiceRows(`invoice:${inv.id}`)).toEqual([{ n: 1, s: 1_000_000_000 }])
    const listed = (await api('GET', '/api/admin/invoices?status=paid', admin)).body.data
    expect(listed.find((i: any) => i.id === inv.id)).toMatchObject({ teamId: f.team.id, paidRub: 1000 })
  })

  test('refunds count a paid invoice like a card top-up', async () => {
    const { owner, team } = await teams.create('Возврат')
    expect((await api('GET', '/api/payments/refund-request', owner, undefined)).status).toBe(200)
    const status = async () => (await call(gw.url, 'GET', '/api/payments/refund-request', { token: owner.accessToken, team: team.id })).body.data
    expect((await status()).reasons).toContain('Возвращаются только средства, внесённые картой, а пополнений картой не было')
    // A company of its own: a second team naming Romashka's INN would wait for the site admin.
    await api('PUT', `/api/teams/${team.id}/company`, owner, { ...ROMASHKA_DETAILS, inn: freshCompanyInn() })
    const inv = (await api('POST', `/api/teams/${team.id}/invoices`, owner, { amountRub: 1500 })).body.data
    await api('POST', `/api/admin/invoices/${inv.id}/mark-paid`, admin)
    const after = await status()
    expect(after).toMatchObject({ eligible: true, remainder: 1500, reasons: [], lastTopUpAt: expect.any(String) })
  })
})

describe('closing documents', () => {
  test('an act per Moscow month with spending, equal to Σ that month’s usage ledger rows; numbers stable; listed with the invoices', async () => {
    const { owner, team } = await teams.create('Акты')
    const company = { ...ROMASHKA_DETAILS, inn: freshCompanyInn() }
    await api('PUT', `/api/teams/${team.id}/company`, owner, company)
    const inv = (await api('POST', `/api/teams/${team.id}/invoices`, owner, { amountRub: 1000 })).body.data
    await api('POST', `/api/admin/invoices/${inv.id}/mark-paid`, admin)
    expect((await api('GET', `/api/teams/${team.id}/documents`, owner)).body.data).toEqual([
      { kind: 'invoice', id: inv.id, number: inv.number, date: inv.issuedAt, amountRub: 1000, pdfUrl: inv.pdfUrl, status: 'paid' },
    ])
    const key = await teams.key(owner, team.id)
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(HI),
      })
      expect(res.status).toBe(200)
      await res.text()
    }
    // A well-funded account's charges are applied right after their answers (money/reserves.ts, PostgreSQL).
    const rows = await eventually(async () => {
      const found = await gw.read<{ id: string; amount_micros: number }>(
        "select id, amount_micros from ledger_entries where team_id = ? and type = 'usage' order by created_at",
        team.id,
      )
      return found.length === 4 ? found : undefined
    })
    // Two rows on either side of midnight, Moscow, between October and November 2026: 23:59:59.999 and 00:00:00.000.
    await execute('update ledger_entries set created_at = ? where id = ?', Date.parse('2026-10-31T20:59:59.999Z'), rows[0]!.id)
    await execute('update ledger_entries set created_at = ? where id = ?', Date.parse('2026-10-31T21:00:00.000Z'), rows[1]!.id)
    const kopecks = (micros: number) => Math.floor((micros + 5000) / 10_000)
    const october = kopecks(-rows[0]!.amount_micros)
    const november = kopecks(-(rows[1]!.amount_micros + rows[2]!.amount_micros + rows[3]!.amount_micros))

    const docs = (await api('GET', `/api/teams/${team.id}/documents`, owner)).body.data
    const acts = docs.filter((d: any) => d.kind === 'act')
    expect(acts).toEqual([
      expect.objectContaining({ kind: 'act', period: '2026-11', amountRub: november / 100, number: expect.stringMatching(/^2026-11-\d{4}$/), preliminary: true }),
      expect.objectContaining({ kind: 'act', period: '2026-10', amountRub: october / 100, number: expect.stringMatching(/^2026-10-\d{4}$/), preliminary: false }),
    ])
    expect((await api('GET', `/api/teams/${team.id}/documents`, owner)).body.data).toEqual(docs) // numbers stable
    expect((await api('GET', `/api/teams/${team.id}/documents`, f.member)).status).toBe(404)

    const act = await download(acts[1].pdfUrl, owner)
    expect(act.type).toBe('application/pdf')
    const text = await pdfText(act.bytes)
    expect(text).toContain(acts[1].number)
    expect(text).toContain(company.inn)
    expect((await download(acts[1].pdfUrl, await registerUser(gw.url))).status).toBe(404)
    expect((await download(`${gw.url}/api/teams/${team.id}/acts/2026-09/pdf`, owner)).status).toBe(404)
    expect((await download(`${gw.url}/api/teams/${team.id}/acts/сентябрь/pdf`, owner)).status).toBe(400)
  })
})

describe('without seller details', () => {
  test('invoice payment is not offered', async () => {
    const plain = await startServer()
    try {
      const owner = await registerUser(plain.url)
      const team = (await api('POST', '/api/teams', owner, { name: 'Без продавца' }, plain.url)).body.data
      expect((await api('GET', '/api/invoices/availability', owner, undefined, plain.url)).body.data).toEqual({ enabled: false, minRub: 1000, maxRub: 1_000_000, taxRegime: null })
      await api('PUT', `/api/teams/${team.id}/company`, owner, ROMASHKA_DETAILS, plain.url)
      expect((await api('POST', `/api/teams/${team.id}/invoices`, owner, { amountRub: 1200 }, plain.url)).body).toEqual({
        success: false,
        error: 'Оплата по счёту не подключена: не заданы реквизиты продавца',
      })
    } finally {
      await plain.stop()
    }
  })
})
