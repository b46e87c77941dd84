// login, logout, whoami.

import { homedir } from 'node:os'
import type { Command } from 'commander'
import type { User } from '../lib/api'
import { context, print, printJson } from '../lib/context'
import { CliError, EXIT } from '../lib/errors'
import { rubles } from '../lib/format'

const tildify = (path: string) => (path.startsWith(`${homedir()}/`) ? `~${path.slice(homedir().length)}` : path)

export function authCommands(program: Command) {
  program
    .command('login')
    .description('войти в аккаунт: спросит e-mail и пароль или возьмёт их из параметров')
    .option('-e, --email <email>', 'e-mail аккаунта')
    .option('-p, --password <пароль>', 'пароль (без параметра спросит, не показывая ввод)')
    .action(async (opts: { email?: string; password?: string }, cmd: Command) => {
      const { api, server, store } = context(cmd)
      let { email, password } = opts
      if (!email || !password) {
        if (!process.stdin.isTTY) throw new CliError('Не указаны e-mail или пароль', 'передайте --email и --password или запустите в терминале', EXIT.usage)
        // Ink is loaded only when it draws something: it costs ~0.3 s of start-up.
        const { promptCredentials } = await import('../views/login')
        ;({ email, password } = await promptCredentials(email))
      }
      const user = await api.login(email, password)
      print(`Вы вошли как ${user.email} на ${server}. Баланс: ${rubles(user.balance)}`)
      print(`Токены сохранены в ${tildify(store.file)}`)
    })

  program
    .command('logout')
    .description('выйти: отозвать сессию на сервере и удалить токены')
    .action(async (_opts, cmd: Command) => {
      const { was, revoked } = await context(cmd).api.logout()
      if (!was) return print('Вы не были авторизованы.')
      print(revoked ? 'Вы вышли из аккаунта.' : 'Токены удалены, но сервер недоступен: сессия на нём истечёт сама.')
    })

  program
    .command('whoami')
    .description('кто вошёл: e-mail, роль, баланс и сервер')
    .option('--json', 'вывести JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { api, server } = context(cmd)
      const { user } = await api.get<{ user: User }>('/api/auth/profile')
      if (opts.json) return printJson({ ...user, server })
      print(`E-mail:  ${user.email}`)
      print(`Роль:    ${user.role === 'admin' ? 'администратор' : 'пользователь'}`)
      print(`Баланс:  ${rubles(user.balance)}`)
      print(`Сервер:  ${server}`)
    })
}
