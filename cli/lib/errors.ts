// One error type for everything the user should see: a Russian message, a hint on what to do
// next, and an exit code scripts can branch on (documented in the README).
export const EXIT = {
  error: 1,
  usage: 2,
  auth: 3,
  balance: 4,
  unreachable: 5,
  interrupted: 130,
} as const

export class CliError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message)
    this.name = 'CliError'
  }
}

export const notSignedIn = (server: string) => new CliError(`Вы не вошли в аккаунт на ${server}`, 'выполните `gw login`', EXIT.auth)

export const sessionExpired = () => new CliError('Сессия истекла', 'войдите снова: `gw login`', EXIT.auth)

export const unreachable = (server: string) =>
  new CliError(`Сервер ${server} недоступен`, 'проверьте, что он запущен, или укажите адрес: `gw --server URL …` (или переменная GW_SERVER)', EXIT.unreachable)

export const insufficientBalance = (message: string) => new CliError(message, 'пополнить: `gw topup 500`', EXIT.balance)

/** The single line printed to stderr. */
export const errorLine = (e: CliError) => `Ошибка: ${e.message}${e.hint ? ` — ${e.hint}` : ''}`
