// balance, transactions, usage, topup.
import { type Command, InvalidArgumentError } from 'commander'
import { STATUS_LABELS } from '../../src/content/activity'
import { describeTransaction } from '../../src/content/ledger'
import type { Balance, Payment, Transaction, Usage } from '../lib/api'
import { context, positiveInt, print, printJson } from '../lib/context'
import { CliError, EXIT } from '../lib/errors'
import { integer, moscowDay, mskColumn, price, rubles, signedPrice, table, when } from '../lib/format'

const TYPE_LABELS: Record<Transaction['type'], string> = {
  bonus: 'бонус',
  topup: 'пополнение',
  usage: 'расход',
  admin: 'корректировка',
  refund: 'возврат',
  promo: 'промокод',
  referral: 'реферальный бонус',
}

const PERIODS = ['7d', '30d', '90d', 'all'] as const
type Period = (typeof PERIODS)[number]

/** Like the web: from 00:00 Moscow time (UTC+3) of the day N−1 days ago; `all` sends no date. */
export function periodStart(period: Period, now = Date.now()): string | undefined {
  if (period === 'all') return undefined
  const days = Number(period.slice(0, -1))
  const MSK = 3 * 3_600_000
  const DAY = 86_400_000
  const startMsk = Math.floor((now + MSK) / DAY) * DAY - (days - 1) * DAY
  return new Date(startMsk - MSK).toISOString()
}

function parsePeriod(value: string): Period {
  if (!(PERIODS as readonly string[]).includes(value)) throw new InvalidArgumentError(`допустимые периоды: ${PERIODS.join(', ')}`)
  return value as Period
}

function parseAmount(value: string): number {
  const n = Number(value.replace(',', '.').replace(/\s|₽/g, ''))
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('сумма — число в рублях, например 500')
  return n
}

/** The system's browser opener, if there is one. */
function opener(): string[] | null {
  if (process.platform === 'darwin') return ['open']
  if (process.platform === 'win32') return ['cmd', '/c', 'start', '']
  return Bun.which('xdg-open') ? ['xdg-open'] : null
}

export function billingCommands(program: Command) {
  program
    .command('balance')
    .description('текущий баланс')
    .option('--json', 'вывести JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { api } = context(cmd)
      const data = await api.get<Balance>('/api/billing/balance')
      if (opts.json) return printJson(data)
      const team = api.team()
      print(team ? `Баланс команды «${team.name}»: ${rubles(data.balance)}` : `Баланс: ${rubles(data.balance)}`)
      if (data.isLow) print('Баланс заканчивается — пополните: gw topup 500')
    })

  program
    .command('transactions')
    .description('история движений баланса, новые сверху')
    .option('-n, --limit <N>', 'сколько записей показать', positiveInt, 50)
    .option('--json', 'вывести JSON')
    .action(async (opts: { limit: number; json?: boolean }, cmd: Command) => {
      const list = await context(cmd).api.get<Transaction[]>(`/api/billing/transactions?limit=${opts.limit}`)
      if (opts.json) return printJson(list)
      if (list.length === 0) return print('Движений по балансу пока нет.')
      print(
        table(
          [mskColumn('Дата'), 'Тип', 'Сумма', 'Баланс после', 'Описание'],
          list.map((t) => [when(t.createdAt), TYPE_LABELS[t.type] ?? t.type, signedPrice(t.amount), rubles(t.balanceAfter), describeTransaction(t.description)]),
          [2, 3],
        ),
      )
    })

  program
    .command('usage')
    .description('расходы на запросы к /v1 за период и последние запросы')
    .option('--period <период>', 'период: 7d, 30d, 90d или all', parsePeriod, '30d' as Period)
    .option('-n, --limit <N>', 'сколько последних запросов показать', positiveInt, 20)
    .option('--json', 'вывести JSON')
    .action(async (opts: { period: Period; limit: number; json?: boolean }, cmd: Command) => {
      const query = new URLSearchParams({ limit: String(opts.limit) })
      const start = periodStart(opts.period)
      if (start) query.set('startDate', start)
      const usage = await context(cmd).api.get<Usage>(`/api/billing/usage?${query}`)
      if (opts.json) return printJson(usage)
      const label = opts.period === 'all' ? 'за всё время' : `за ${opts.period.slice(0, -1)} дней (с ${moscowDay(start!)})`
      print(`Расходы ${label}: ${rubles(usage.totalCost)} · запросов: ${integer(usage.totalRequests)} · токенов: ${integer(usage.totalTokens)}`)
      if (usage.logs.length === 0) return
      print('')
      print(
        table(
          [mskColumn('Время'), 'Модель', 'Токены', 'Стоимость', 'Статус', 'Ключ'],
          usage.logs.map((l) => [
            when(l.createdAt),
            l.model,
            integer(l.totalTokens),
            price(l.cost),
            STATUS_LABELS[l.status].toLowerCase(),
            l.apiKeyName ?? (l.apiKeyId ? l.apiKeyId : 'сессия'),
          ]),
          [2, 3],
        ),
      )
    })

  program
    .command('topup')
    .description('пополнить баланс: открывает ссылку на оплату картой в браузере, а если браузер открыть нельзя — печатает её')
    .argument('<сумма>', 'сумма в рублях, от 100 до 1 000 000', parseAmount)
    .option('--no-open', 'не открывать ссылку в браузере')
    .option('--json', 'вывести JSON')
    .action(async (amount: number, opts: { open: boolean; json?: boolean }, cmd: Command) => {
      // A path: the server makes it absolute on its own origin and appends ?payment=<id>.
      const payment = await context(cmd).api.post<Payment>('/api/payments/create', { amount, returnUrl: '/app/billing' })
      if (opts.json) return printJson(payment)
      if (!payment.confirmationUrl) throw new CliError('Сервер не вернул ссылку на оплату', undefined, EXIT.error)
      print(`Платёж на ${rubles(payment.amount)} создан. Оплатите по ссылке:`)
      print(payment.confirmationUrl)
      const open = opener()
      if (opts.open && open && process.stdout.isTTY) {
        Bun.spawn([...open, payment.confirmationUrl], { stdio: ['ignore', 'ignore', 'ignore'] }).unref()
        print('Ссылка открыта в браузере. Баланс пополнится после оплаты: gw balance')
      } else {
        // No browser here (a server, a pipe, --no-open): the printed link is the way to pay.
        const why = !opts.open ? null : !open ? 'Браузер здесь открыть нельзя' : 'Вывод не в терминал — браузер не открываем'
        print(`${why ? `${why}: откройте` : 'Откройте'} ссылку выше в браузере. Баланс пополнится после оплаты: gw balance`)
      }
    })
}
