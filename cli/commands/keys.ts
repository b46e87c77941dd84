// keys list|create|rename|enable|disable|delete — API keys for the /v1 endpoint. A key is named
// by its name or the beginning of its ID (as `keys list` shows it); delete asks first.
import type { Command } from 'commander'
import type { Api, ApiKey } from '../lib/api'
import { confirm } from '../lib/confirm'
import { context, print, printJson } from '../lib/context'
import { CliError, EXIT } from '../lib/errors'
import { cut, rubles, table, when } from '../lib/format'

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
  const rows = list.map((k) => [k.id.slice(0, n), k.name, `${k.keyPrefix}…`, k.isActive ? 'активен' : 'отключён', rubles(k.monthSpent), when(k.lastUsedAt).slice(0, 10)])
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
  // What does not fit a row: budgets and, in a team, whose key it is.
  const notes = list.flatMap((k) => {
    const parts = [
      k.budget.limitRub === null ? null : `бюджет ${rubles(k.budget.spent)} из ${rubles(k.budget.limitRub)} ${PERIODS[k.budget.period]}`,
      k.owner ? `владелец ${k.owner.email}` : null,
    ].filter(Boolean)
    return parts.length ? [`${k.id.slice(0, n)}  ${parts.join(' · ')}`] : []
  })
  if (notes.length) lines.push('', ...notes)
  return lines.join('\n')
}

export function keysCommands(program: Command) {
  const keys = program.command('keys').description('API-ключи для доступа к /v1')

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

  keys
    .command('create')
    .description('создать ключ; полный ключ показывается один раз')
    .argument('<название>', 'название, например «сервер» или «ноутбук»')
    .option('--json', 'вывести JSON (с полным ключом)')
    .action(async (name: string, opts: { json?: boolean }, cmd: Command) => {
      const key = await context(cmd).api.post<ApiKey & { key: string }>('/api/auth/api-keys', { name })
      if (opts.json) return printJson(key)
      print(`Ключ «${key.name}» создан (ID ${key.id}):`)
      print('')
      print(`  ${key.key}`)
      print('')
      print('Сохраните его сейчас: полностью ключ показывается только один раз.')
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
