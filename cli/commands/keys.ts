// keys list|create|rename|enable|disable|delete — API keys for the /v1 endpoint.
import type { Command } from 'commander'
import type { ApiKey } from '../lib/api'
import { context, print, printJson } from '../lib/context'
import { price, rubles, table, when } from '../lib/format'

const path = (id: string) => `/api/auth/api-keys/${encodeURIComponent(id)}`
const PERIODS: Record<ApiKey['budget']['period'], string> = { day: 'в день', week: 'в неделю', month: 'в месяц', total: 'всего' }

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
      print(
        table(
          ['ID', 'Название', 'Ключ', 'Статус', 'За месяц', 'Бюджет', 'Создан', 'Использован'],
          list.map((k) => [
            k.id,
            k.owner ? `${k.name} (${k.owner.email})` : k.name,
            `${k.keyPrefix}…`,
            k.isActive ? 'активен' : 'отключён',
            price(k.monthSpent),
            k.budget.limitRub === null ? 'нет' : `${price(k.budget.spent)} из ${rubles(k.budget.limitRub)} ${PERIODS[k.budget.period]}`,
            when(k.createdAt),
            when(k.lastUsedAt),
          ]),
          [4, 5],
        ),
      )
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
    .argument('<id>', 'ID ключа из gw keys list')
    .argument('<название>', 'новое название')
    .option('--json', 'вывести JSON')
    .action(async (id: string, name: string, opts: { json?: boolean }, cmd: Command) => {
      const key = await context(cmd).api.patch<ApiKey>(path(id), { name })
      opts.json ? printJson(key) : print(`Ключ ${key.id} переименован в «${key.name}».`)
    })

  for (const [verb, isActive, description, done] of [
    ['disable', false, 'отключить ключ: запросы с ним перестанут проходить', 'отключён'],
    ['enable', true, 'снова включить отключённый ключ', 'включён'],
  ] as const) {
    keys
      .command(verb)
      .description(description)
      .argument('<id>', 'ID ключа из gw keys list')
      .option('--json', 'вывести JSON')
      .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
        const key = await context(cmd).api.patch<ApiKey>(path(id), { isActive })
        opts.json ? printJson(key) : print(`Ключ «${key.name}» ${done}.`)
      })
  }

  keys
    .command('delete')
    .description('удалить ключ: запросы с ним сразу перестанут работать')
    .argument('<id>', 'ID ключа из gw keys list')
    .option('--json', 'вывести JSON')
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      await context(cmd).api.delete(path(id))
      opts.json ? printJson({ ok: true, id }) : print(`Ключ ${id} удалён.`)
    })
}
