// balance, transactions, usage, topup.
import { type Command, InvalidArgumentError } from 'commander'
import { STATUS_LABELS } from '../../src/content/activity'
import { describeTransaction } from '../../src/content/ledger'
import type { AutoTopup, PaymentMethod } from '../../src/wire'
import type { Balance, Payment, Transaction, Usage } from '../lib/api'
import { context, positiveInt, print, printJson } from '../lib/context'
import { CliError, EXIT } from '../lib/errors'
import { integer, moscowDay, moscowTime, mskColumn, price, rubles, signedPrice, table, when } from '../lib/format'

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
    .description('пополнить баланс: открывает ссылку на оплату картой (или через СБП) в браузере, а если браузер открыть нельзя — печатает её')
    .argument('<сумма>', 'сумма в рублях, от 100 до 1 000 000 (через СБП — до 700 000)', parseAmount)
    .option('--sbp', 'оплатить через СБП: QR-код или приложение банка, на оплату — 1 час')
    .option('--save-card', 'сохранить карту для следующих платежей и автопополнения')
    .option('--no-open', 'не открывать ссылку в браузере')
    .option('--json', 'вывести JSON')
    .action(async (amount: number, opts: { open: boolean; json?: boolean; sbp?: boolean; saveCard?: boolean }, cmd: Command) => {
      if (opts.sbp && opts.saveCard) throw new CliError('--save-card — только для оплаты картой, без --sbp', undefined, EXIT.usage)
      const method = opts.sbp ? 'sbp' : 'card'
      // A path: the server makes it absolute on its own origin and appends ?payment=<id>.
      const payment = await context(cmd).api.post<Payment>('/api/payments/create', {
        amount,
        returnUrl: '/app/billing',
        method,
        ...(opts.saveCard ? { savePaymentMethod: true } : {}),
      })
      if (opts.json) return printJson(payment)
      if (!payment.confirmationUrl) throw new CliError('Сервер не вернул ссылку на оплату', undefined, EXIT.error)
      print(
        opts.sbp
          ? `Платёж через СБП на ${rubles(payment.amount)} создан. Откройте ссылку: на компьютере — QR-код для приложения банка, на телефоне — выбор банка. На оплату — 1 час.`
          : `Платёж на ${rubles(payment.amount)} создан. Оплатите по ссылке:`,
      )
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

  program
    .command('autotopup')
    .description('автопополнение с сохранённой карты: показать настройки, включить (--on …) или выключить (--off)')
    .option('--on', 'включить')
    .option('--off', 'выключить (настройки сохраняются)')
    .option('--threshold <₽>', 'пополнять, когда доступный баланс ниже этой суммы', parseAmount)
    .option('--amount <₽>', 'сумма одного пополнения, от 100 ₽', parseAmount)
    .option('--card <id|4 цифры>', 'сохранённая карта: её id или последние 4 цифры (карта сохраняется при оплате: gw topup 500 --save-card)')
    .option('--daily-limit <₽>', 'не больше этой суммы автопополнений в сутки (по Москве)', parseAmount)
    .option('--json', 'вывести JSON')
    .addHelpText('after', '\nПримеры:\n  gw autotopup\n  gw autotopup --on --threshold 200 --amount 1000 --card 4444 --daily-limit 3000\n  gw autotopup --off')
    .action(async (opts: { on?: boolean; off?: boolean; threshold?: number; amount?: number; card?: string; dailyLimit?: number; json?: boolean }, cmd: Command) => {
      if (opts.on && opts.off) throw new CliError('укажите что-то одно: --on или --off', undefined, EXIT.usage)
      const { api } = context(cmd)
      const cards = await api.get<PaymentMethod[]>('/api/payments/methods')
      const changes = opts.threshold !== undefined || opts.amount !== undefined || opts.card !== undefined || opts.dailyLimit !== undefined
      let state: AutoTopup
      if (opts.on || opts.off || changes) {
        const current = await api.get<AutoTopup>('/api/billing/auto-topup')
        let card: string | undefined
        if (opts.card !== undefined) {
          const wanted = opts.card.trim()
          const found = cards.find((c) => c.id === wanted) ?? cards.filter((c) => c.last4 === wanted).at(0)
          if (!found)
            throw new CliError(
              `нет сохранённой карты «${wanted}»`,
              cards.length ? 'посмотрите список: gw autotopup' : 'сохраните карту при оплате: gw topup 500 --save-card',
              EXIT.usage,
            )
          card = found.id
        } else if (opts.on && !current.paymentMethodId && cards.length === 1) card = cards[0]!.id
        state = await api.put<AutoTopup>('/api/billing/auto-topup', {
          enabled: opts.on ? true : opts.off ? false : current.enabled,
          ...(opts.threshold !== undefined ? { thresholdRub: opts.threshold } : {}),
          ...(opts.amount !== undefined ? { amountRub: opts.amount } : {}),
          ...(opts.dailyLimit !== undefined ? { dailyLimitRub: opts.dailyLimit } : {}),
          ...(card !== undefined ? { paymentMethodId: card } : {}),
        })
      } else state = await api.get<AutoTopup>('/api/billing/auto-topup')
      if (opts.json) return printJson({ ...state, methods: cards })
      const team = api.team()
      const chosen = cards.find((c) => c.id === state.paymentMethodId)
      print(`Автопополнение${team ? ` команды «${team.name}»` : ''}: ${state.enabled ? 'включено' : 'выключено'}`)
      print(`  Когда доступный баланс ниже ${rubles(state.thresholdRub)} — пополнить на ${rubles(state.amountRub)} с карты: ${chosen ? chosen.label : 'не выбрана'}`)
      print(`  Не больше ${rubles(state.dailyLimitRub)} в сутки (по Москве); сегодня: ${rubles(state.chargedTodayRub)}`)
      if (!state.enabled && state.disabledReason) print(`  Выключилось само: ${state.disabledReason}. Проверьте карту или сохраните другую и включите снова: gw autotopup --on`)
      if (state.enabled && state.retryAfter) print(`  Банк отклонил последнее списание; следующая попытка — ${moscowTime(state.retryAfter)}`)
      if (cards.length === 0) return print('Сохранённых карт нет: оплатите с сохранением карты — gw topup 500 --save-card')
      print('')
      print(
        table(
          ['id', 'Карта', 'Срок'],
          cards.map((c) => [c.id, c.label, c.expiryMonth && c.expiryYear ? `${c.expiryMonth.padStart(2, '0')}/${c.expiryYear.slice(-2)}` : '—']),
        ),
      )
    })
}
