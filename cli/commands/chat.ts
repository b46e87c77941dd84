// chat: the Ink chat in a terminal; with a prompt (argument or stdin) just the streamed reply.
import type { Command } from 'commander'
import { context, positiveInt, temperature } from '../lib/context'
import { CliError, EXIT } from '../lib/errors'
import { costSummary } from '../lib/format'

export const DEFAULT_MODEL = 'openai/gpt-3.5-turbo'

type ChatOptions = { model: string; temperature?: number; maxTokens?: number; cost?: boolean }

export function chatCommand(program: Command) {
  program
    .command('chat')
    .description('чат с моделью; с запросом (аргументом или через stdin) печатает только ответ — для конвейеров')
    .argument('[запрос...]', 'запрос; без него в терминале откроется интерактивный чат')
    .option('-m, --model <модель>', 'модель (список: gw models)', DEFAULT_MODEL)
    .option('-t, --temperature <T>', 'температура от 0 до 2', temperature)
    .option('--max-tokens <N>', 'предел длины ответа в токенах', positiveInt)
    .option('--cost', 'после ответа напечатать в stderr его стоимость и остаток баланса')
    .addHelpText('after', '\nПримеры:\n  gw chat\n  gw chat -m anthropic/claude-3-haiku "Привет"\n  git diff | gw chat -m openai/gpt-4o-mini')
    .action(async (words: string[], opts: ChatOptions, cmd: Command) => {
      const { api } = context(cmd)
      api.token() // not signed in: say so before anything else
      // Loaded on demand: openai and Ink would slow every other command's start.
      const { createChatBackend } = await import('../lib/chat-client')
      const backend = createChatBackend(api)
      const params = { model: opts.model, temperature: opts.temperature, maxTokens: opts.maxTokens }

      let prompt = words.join(' ')
      if (!prompt && process.stdin.isTTY) return (await import('../views/chat')).runChat(backend, params)
      if (!prompt) prompt = (await Bun.stdin.text()).trim()
      if (!prompt) throw new CliError('Пустой запрос', 'передайте его аргументом или через stdin: echo "Привет" | gw chat', EXIT.usage)

      let reply = ''
      const { costRub } = await backend.reply(
        params,
        [{ role: 'user', content: prompt }],
        (d) => {
          reply += d
          process.stdout.write(d)
        },
        new AbortController().signal,
      )
      if (!reply) throw new CliError('Пустой ответ модели')
      if (!reply.endsWith('\n')) process.stdout.write('\n')
      if (opts.cost) process.stderr.write(`${costSummary(costRub, await backend.balance())}\n`)
    })
}
