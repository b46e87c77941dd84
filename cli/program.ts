// The commander tree. Help, usage errors and the error line are in Russian.
import { Command, CommanderError, Help } from 'commander'
import pkg from '../package.json'
import { activityCommand } from './commands/activity'
import { authCommands } from './commands/auth'
import { billingCommands } from './commands/billing'
import { chatCommand } from './commands/chat'
import { keysCommands } from './commands/keys'
import { modelsCommand } from './commands/models'
import { teamCommands } from './commands/team'
import { voiceCommands } from './commands/voice'
import { CliError, EXIT, errorLine } from './lib/errors'

const TITLES: Record<string, string> = {
  'Usage:': 'Использование:',
  'Arguments:': 'Аргументы:',
  'Options:': 'Параметры:',
  'Global Options:': 'Общие параметры:',
  'Commands:': 'Команды:',
}

/** '--temperature' of '-t, --temperature <N>': the option a usage error names. */
const longFlag = (flags: string) =>
  flags
    .split(/[\s,|]+/)
    .filter((f) => f.startsWith('-'))
    .pop() ?? flags

// commander's own messages, turned into ours (the value parsers already speak Russian).
const USAGE_ERRORS: [RegExp, (...m: string[]) => string][] = [
  [/missing required argument '(.+?)'/, (a) => `не указан аргумент «${a}»`],
  [/unknown option '(.+?)'(?:\s*\(Did you mean (.+?)\?\))?/s, (o, s) => `неизвестный параметр ${o}${s ? ` (может быть, ${s}?)` : ''}`],
  [/unknown command '(.+?)'(?:\s*\(Did you mean (.+?)\?\))?/s, (c, s) => `неизвестная команда ${c}${s ? ` (может быть, ${s}?)` : ''}`],
  [/too many arguments/, () => 'лишние аргументы'],
  [/option '(.+?)' argument missing/, (o) => `у параметра ${o} не указано значение`],
  [/(?:option '([^']+)' )?argument '(.+?)' is invalid\. (.*)/s, (flags, v, why) => `${flags ? `${longFlag(flags)} ` : ''}«${v}»: ${why}`],
]

const base = new Help()
const ru = (s: string) => s.replace('[options]', '[параметры]').replace('[command]', '[команда]')

function usageError(e: CommanderError, cmdPath: string): CliError {
  const raw = e.message.replace(/^error:\s*/, '')
  for (const [re, say] of USAGE_ERRORS) {
    const m = raw.match(re)
    if (m) return new CliError(say(...m.slice(1)), `справка: ${cmdPath} --help`, EXIT.usage)
  }
  return new CliError(raw, `справка: ${cmdPath} --help`, EXIT.usage)
}

export function buildProgram(): Command {
  const program = new Command('gw')
  // Settings made before .command() are inherited by every subcommand.
  program
    .configureHelp({
      styleTitle: (t) => TITLES[t] ?? t,
      commandUsage: (cmd) => ru(base.commandUsage(cmd)),
      subcommandTerm: (cmd) => ru(base.subcommandTerm(cmd)),
      optionDescription: (o) => base.optionDescription(o).replace('(default: ', '(по умолчанию: '),
      showGlobalOptions: true,
    })
    .helpOption('-h, --help', 'показать справку')
    .helpCommand('help [команда]', 'справка по команде')
    .configureOutput({ outputError: () => {} }) // printed by run() as one Russian line
    .exitOverride()
    .description('Терминальный клиент AI Gateway: аккаунт, команды, баланс, ключи, журнал запросов, модели, чат и голос')
    .version(pkg.version, '-V, --version', 'показать версию')
    .option('-s, --server <URL>', 'адрес сервера (по умолчанию: из настроек, затем GW_SERVER, затем http://localhost:3000)')

  authCommands(program)
  billingCommands(program)
  keysCommands(program)
  activityCommand(program)
  modelsCommand(program)
  chatCommand(program)
  voiceCommands(program)
  teamCommands(program)
  return program
}

/** 'gw keys create' for `gw --server X keys create …`: where to point the --help hint. */
function commandPath(program: Command, args: string[]): string {
  const names = ['gw']
  let cmd = program
  for (const a of args) {
    const sub = cmd.commands.find((c) => c.name() === a)
    if (sub) {
      names.push(a)
      cmd = sub
    }
  }
  return names.join(' ')
}

/** Parses and runs; returns the exit code instead of exiting, so the caller flushes output first. */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram()
  try {
    await program.parseAsync(argv)
    return 0
  } catch (e) {
    let err: CliError
    if (e instanceof CommanderError) {
      // --help and --version end up here too; bare `gw` prints the help and exits 1.
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0
      if (e.code === 'commander.help') return e.exitCode
      err = usageError(e, commandPath(program, argv.slice(2)))
    } else if (e instanceof CliError) {
      err = e
    } else {
      if (process.env.GW_DEBUG) console.error(e)
      err = new CliError((e as Error)?.message ?? String(e))
    }
    process.stderr.write(`${errorLine(err)}\n`)
    return err.exitCode
  }
}
