// keys list|create|update|rename|enable|disable|delete — API keys for the /v1 endpoint and
// management keys (issue 36). A key is named by its name or the beginning of its ID (as `keys list`
// shows it); delete asks first. Policies (rate limits, model and IP allow-lists, expiry) are set
// with create's options and changed with update, where `none` clears one.
import type { Command } from 'commander'
import type { Api, ApiKey } from '../lib/api'
import { confirm } from '../lib/confirm'
import { context, oneOf, print, printJson } from '../lib/context'
import { CliError, EXIT } from '../lib/errors'
import { cut, rubles, table, when } from '../lib/format'
import {
  commaList,
  expiry,
  expiryOrNone,
  KEY_KINDS,
  type KeyKind,
  KIND_LABELS,
  type PolicyOptions,
  policyBody,
  policyParts,
  policySummary,
  rpm,
  rpmOrNone,
  tpm,
  tpmOrNone,
} from '../lib/key-policy'

const path = (id: string) => `/api/auth/api-keys/${encodeURIComponent(id)}`
const PERIODS: Record<ApiKey['budget']['period'], string> = { day: 'в день', week: 'в неделю', month: 'в месяц', total: 'всего' }
const REF = ['<ключ>', 'название ключа или начало его ID из gw keys list'] as const
/** The terminal width `keys list` keeps within. */
const COLUMNS = 80
const MIN_SHORT_ID = 8

/**
 * How many leading characters of the IDs tell the keys apart (at least 8, like git's short
 * hashes). IDs are UUIDv7: keys made within a minute share their first eight characters.
 */
export function shortIdLength(ids: string[]): number {
  let n = MIN_SHORT_ID
  const unique = () => new Set(ids.map((id) => id.slice(0, n))).size === ids.length
  while (n < 36 && !unique()) n++
  return n
}

/** The key `ref` names: its ID, its name (any case) or a unique beginning of its ID. */
export function findKey(list: ApiKey[], ref: string): ApiKey {
  const wanted = ref.trim()
  const lower = wanted.toLowerCase()
  const byId = list.find((k) => k.id === wanted)
  if (byId) return byId
  const byName = list.filter((k) => k.name === wanted)
  const named = byName.length ? byName : list.filter((k) => k.name.toLowerCase() === lower)
  const matches = named.length ? named : lower.length >= 4 ? list.filter((k) => k.id.startsWith(lower)) : []
  if (matches.length === 1) return matches[0]!
  if (matches.length === 0)
    throw new CliError(`Ключ «${wanted}» не найден`, list.length ? 'укажите название или начало ID из `gw keys list`' : 'ключей пока нет: `gw keys create НАЗВАНИЕ`', EXIT.usage)
  const n = shortIdLength(matches.map((k) => k.id))
  throw new CliError(`Под «${wanted}» подходят несколько ключей`, `укажите ID: ${matches.map((k) => `${k.id.slice(0, n)} («${k.name}»)`).join(', ')}`, EXIT.usage)
}

export async function resolveKey(api: Api, ref: string): Promise<ApiKey> {
  return findKey(await api.get<ApiKey[]>('/api/auth/api-keys'), ref)
}

/** The list as a table of at most 80 columns: short IDs, names cut to what is left. */
export function keysTable(list: ApiKey[]): string {
  const n = shortIdLength(list.map((k) => k.id))
  const status = (k: ApiKey) => (!k.isActive ? 'отключён' : k.expired ? 'истёк' : 'активен')
  const rows = list.map((k) => [k.id.slice(0, n), k.name, `${k.keyPrefix}…`, status(k), rubles(k.monthSpent), when(k.lastUsedAt).slice(0, 10)])
  const headers = ['ID', 'Название', 'Ключ', 'Статус', 'За месяц', 'Использован']
  const width = (i: number) => Math.max([...headers[i]!].length, ...rows.map((r) => [...r[i]!].length))
  const others = [0, 2, 3, 4, 5].reduce((sum, i) => sum + width(i), 0) + 2 * (headers.length - 1)
  const nameWidth = Math.max(10, COLUMNS - others)
  const lines = [
    table(
      headers,
      rows.map((r) => r.map((c, i) => (i === 1 ? cut(c, nameWidth) : c))),
      [4],
    ),
  ]
  // What does not fit a row: the kind, the policy, the app, budgets and, in a team, whose key it is.
  const notes = list.flatMap((k) => {
    const parts = [
      k.kind === 'management' ? KIND_LABELS.management : null,
      ...policyParts(k),
      k.appOrigin ? `приложение ${k.appOrigin}` : null,
      k.budget.limitRub === null ? null : `бюджет ${rubles(k.budget.spent)} из ${rubles(k.budget.limitRub)} ${PERIODS[k.budget.period]}`,
      k.owner ? `владелец ${k.owner.email}` : null,
    ].filter((p): p is string => Boolean(p))
    return parts.length ? wrap(`${k.id.slice(0, n)}  `, parts.join(' · ')) : []
  })
  if (notes.length) lines.push('', ...notes)
  return lines.join('\n')
}

/** `text` after `lead`, broken at spaces into lines of at most 80 columns indented under its start. */
export function wrap(lead: string, text: string): string[] {
  const indent = ' '.repeat([...lead].length)
  const lines: string[] = []
  let line = lead
  let empty = true
  for (const word of text.split(' ')) {
    if (!empty && [...line].length + 1 + [...word].length > COLUMNS) {
      lines.push(line)
      line = indent
      empty = true
    }
    line += empty ? word : ` ${word}`
    empty = false
  }
  lines.push(line)
  return lines
}

type PolicyFlags = PolicyOptions & { json?: boolean }

/** The policy options of create (values only) and update (values or none). */
function policyOptions(cmd: Command, clearable: boolean): Command {
  const none = clearable ? '; none — снять' : ''
  return cmd
    .option('--rpm <N>', `не больше N запросов в минуту${none}`, clearable ? rpmOrNone : rpm)
    .option('--tpm <N>', `не больше N токенов в минуту${none}`, clearable ? tpmOrNone : tpm)
    .option(
      '--models <список>',
      `только эти модели: шаблоны через запятую, например 'openai/*,anthropic/claude-3.5-sonnet' (можно повторять)${none}`,
      commaList('--models', clearable),
    )
    .option('--ips <список>', `только с этих IP-адресов и сетей через запятую, например 10.0.0.0/8,192.168.1.5 (можно повторять)${none}`, commaList('--ips', clearable))
    .option('--expires <дата>', `действует до конца этого дня по Москве (ГГГГ-ММ-ДД) или до времени ISO 8601${none}`, clearable ? expiryOrNone : (value: string) => expiry(value))
}

export function keysCommands(program: Command) {
  const keys = program.command('keys').description('API-ключи: для запросов к /v1 и управляющие')

  keys
    .command('list', { isDefault: true })
    .description('список ключей (сами ключи не показываются — только их начало)')
    .option('--json', 'вывести JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const list = await context(cmd).api.get<ApiKey[]>('/api/auth/api-keys')
      if (opts.json) return printJson(list)
      if (list.length === 0) return print('Ключей пока нет. Создайте: gw keys create НАЗВАНИЕ')
      print(keysTable(list))
    })

  policyOptions(
    keys
      .command('create')
      .description('создать ключ; полный ключ показывается один раз')
      .argument('<название>', 'название, например «сервер» или «ноутбук»')
      .option(
        '--kind <вид>',
        'inference — для запросов к /v1 (по умолчанию); management — управляющий: ключи, баланс и журнал через API, но не /v1',
        oneOf(KEY_KINDS, 'вид ключа — один из'),
      ),
    false,
  )
    .option('--json', 'вывести JSON (с полным ключом)')
    .action(async (name: string, opts: PolicyFlags & { kind?: KeyKind }, cmd: Command) => {
      const body = { name, ...(opts.kind ? { kind: opts.kind } : {}), ...policyBody(opts) }
      const key = await context(cmd).api.post<ApiKey & { key: string }>('/api/auth/api-keys', body)
      if (opts.json) return printJson(key)
      print(`${key.kind === 'management' ? 'Управляющий ключ' : 'Ключ'} «${key.name}» создан (ID ${key.id}):`)
      print('')
      print(`  ${key.key}`)
      print('')
      print('Сохраните его сейчас: полностью ключ показывается только один раз.')
      const policy = policyParts(key)
      if (policy.length) print(`Ограничения: ${policy.join(' · ')}.`)
      if (key.kind === 'management') print('Он управляет ключами и читает баланс и журнал через API; запросы к /v1 с ним не проходят.')
    })

  policyOptions(
    keys
      .command('update')
      .description('изменить ограничения ключа: лимиты, модели, IP, срок действия (none — снять ограничение)')
      .argument(...REF),
    true,
  )
    .option('--json', 'вывести JSON')
    .action(async (ref: string, opts: PolicyFlags, cmd: Command) => {
      const body = policyBody(opts)
      if (Object.keys(body).length === 0)
        throw new CliError('Не указано, что изменить', 'параметры: --rpm, --tpm, --models, --ips, --expires (none — снять); справка: gw keys update --help', EXIT.usage)
      const { api } = context(cmd)
      const found = await resolveKey(api, ref)
      const key = await api.patch<ApiKey>(path(found.id), body)
      opts.json ? printJson(key) : print(`Ключ «${key.name}» обновлён: ${policySummary(key)}.`)
    })

  keys
    .command('rename')
    .description('переименовать ключ')
    .argument(...REF)
    .argument('<название>', 'новое название')
    .option('--json', 'вывести JSON')
    .action(async (ref: string, name: string, opts: { json?: boolean }, cmd: Command) => {
      const { api } = context(cmd)
      const found = await resolveKey(api, ref)
      const key = await api.patch<ApiKey>(path(found.id), { name })
      opts.json ? printJson(key) : print(`Ключ «${found.name}» переименован в «${key.name}».`)
    })

  for (const [verb, isActive, description, done] of [
    ['disable', false, 'отключить ключ: запросы с ним перестанут проходить', 'отключён'],
    ['enable', true, 'снова включить отключённый ключ', 'включён'],
  ] as const) {
    keys
      .command(verb)
      .description(description)
      .argument(...REF)
      .option('--json', 'вывести JSON')
      .action(async (ref: string, opts: { json?: boolean }, cmd: Command) => {
        const { api } = context(cmd)
        const key = await api.patch<ApiKey>(path((await resolveKey(api, ref)).id), { isActive })
        opts.json ? printJson(key) : print(`Ключ «${key.name}» ${done}.`)
      })
  }

  keys
    .command('delete')
    .description('удалить ключ (после подтверждения): запросы с ним сразу перестанут работать')
    .argument(...REF)
    .option('-y, --yes', 'не спрашивать подтверждения (для скриптов)')
    .option('--json', 'вывести JSON')
    .action(async (ref: string, opts: { yes?: boolean; json?: boolean }, cmd: Command) => {
      const { api } = context(cmd)
      const key = await resolveKey(api, ref)
      if (!opts.yes && !(await confirm(`Удалить ключ «${key.name}» (${key.keyPrefix}…)? Запросы с ним сразу перестанут работать.`)))
        throw new CliError('Ключ не удалён', undefined, EXIT.error)
      await api.delete(path(key.id))
      opts.json ? printJson({ ok: true, id: key.id }) : print(`Ключ «${key.name}» удалён.`)
    })
}
