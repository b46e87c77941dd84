// team list | use <name|personal> — the account the other commands act in: keys, balance, usage
// and chat then work in the chosen team (the server is told through X-Team-Id).
import type { Command } from 'commander'
import type { TeamSummary } from '../lib/api'
import { context, print, printJson } from '../lib/context'
import { CliError, EXIT } from '../lib/errors'
import { rubles, table } from '../lib/format'

const ROLES: Record<TeamSummary['role'], string> = { owner: 'владелец', admin: 'администратор', billing: 'бухгалтер', member: 'участник' }
const PERSONAL = ['personal', 'личный']

export function teamCommands(program: Command) {
  const team = program.command('team').description('команды: в какой из них (или в личном аккаунте) работают ключи, баланс, статистика и чат')

  team
    .command('list', { isDefault: true })
    .description('команды, в которых вы состоите; * — выбранная')
    .option('--json', 'вывести JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { api } = context(cmd)
      const teams = await api.get<TeamSummary[]>('/api/teams')
      const current = api.team()
      if (opts.json) return printJson({ current: current ?? null, teams })
      const rows = [
        [current ? '' : '*', 'Личный аккаунт', '', '', ''],
        ...teams.map((t) => [t.id === current?.id ? '*' : '', t.name, ROLES[t.role], rubles(t.balance), String(t.memberCount ?? '')]),
      ]
      print(table(['', 'Аккаунт', 'Роль', 'Баланс', 'Участников'], rows, [3, 4]))
      if (teams.length === 0) print('\nВы пока не состоите в командах: создать команду или принять приглашение можно на сайте.')
      else print('\nВыбрать: gw team use НАЗВАНИЕ (или personal — личный аккаунт)')
    })

  team
    .command('use')
    .description('работать в команде (по названию или ID) или в личном аккаунте (personal)')
    .argument('<команда>', 'название или ID команды, либо personal')
    .option('--json', 'вывести JSON')
    .action(async (wanted: string, opts: { json?: boolean }, cmd: Command) => {
      const { api } = context(cmd)
      if (PERSONAL.includes(wanted.trim().toLowerCase())) {
        api.useTeam(null)
        return opts.json ? printJson({ current: null }) : print('Теперь вы работаете в личном аккаунте.')
      }
      const teams = await api.get<TeamSummary[]>('/api/teams')
      const name = wanted.trim().toLowerCase()
      const exact = teams.filter((t) => t.id === wanted.trim() || t.name === wanted.trim())
      const matches = exact.length ? exact : teams.filter((t) => t.name.toLowerCase() === name)
      if (matches.length === 0)
        throw new CliError(
          `Команда «${wanted}» не найдена среди ваших команд`,
          teams.length ? `ваши команды: ${teams.map((t) => t.name).join(', ')}` : 'вы пока не состоите в командах',
          EXIT.usage,
        )
      if (matches.length > 1) throw new CliError(`Команд с названием «${wanted}» несколько`, `укажите ID: ${matches.map((t) => t.id).join(', ')}`, EXIT.usage)
      const chosen = matches[0]!
      api.useTeam({ id: chosen.id, name: chosen.name })
      if (opts.json) return printJson({ current: { id: chosen.id, name: chosen.name, role: chosen.role } })
      print(`Теперь вы работаете в команде «${chosen.name}» (роль: ${ROLES[chosen.role]}). Баланс команды: ${rubles(chosen.balance)}`)
    })
}
