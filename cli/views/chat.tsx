// The interactive chat: finished turns are printed once (<Static>) so long sessions scroll like
// a normal terminal; only the reply being streamed and the input line are redrawn.
import { Box, render, Static, Text, useApp, useInput } from 'ink'
import Spinner from 'ink-spinner'
import TextInput from 'ink-text-input'
import { useEffect, useRef, useState } from 'react'
import type { ChatBackend, ChatMessage, ChatParams } from '../lib/chat-client'
import { CliError, errorLine } from '../lib/errors'
import { costSummary, rubles } from '../lib/format'

type Entry =
  | { id: number; kind: 'user'; text: string }
  | { id: number; kind: 'assistant'; model: string; text: string; costRub: string | null; balance: number | null; stopped: boolean }
  | { id: number; kind: 'notice' | 'error'; text: string }
type NewEntry = Entry extends infer E ? (E extends Entry ? Omit<E, 'id'> : never) : never

const HELP =
  'Команды: /model ИМЯ — сменить модель (достаточно части названия, например haiku), /model — текущая модель, /clear — забыть историю, /exit — выход. ' +
  'Ctrl+C останавливает ответ, повторный Ctrl+C — выход.'

const describe = (e: unknown) => (e instanceof CliError ? errorLine(e) : `Ошибка: ${(e as Error)?.message ?? e}`)

// A stopped reply is charged for what was streamed: its cost and the balance after it, as for any other.
const costLine = (e: Extract<Entry, { kind: 'assistant' }>) => `${e.stopped ? 'Ответ остановлен. ' : ''}${costSummary(e.costRub, e.balance)}`

function EntryView({ entry: e }: { entry: Entry }) {
  switch (e.kind) {
    case 'user':
      return (
        <Text>
          <Text color="green" bold>
            Вы:{' '}
          </Text>
          {e.text}
        </Text>
      )
    case 'assistant':
      return (
        <Box flexDirection="column" marginBottom={1}>
          <Text color="cyan" bold>
            {e.model}:
          </Text>
          {e.text ? <Text>{e.text}</Text> : !e.stopped && <Text dimColor>Пустой ответ модели</Text>}
          <Text dimColor>{costLine(e)}</Text>
        </Box>
      )
    case 'notice':
      return <Text dimColor>{e.text}</Text>
    case 'error':
      return <Text color="red">{e.text}</Text>
  }
}

export function ChatView({ backend, params: initial }: { backend: ChatBackend; params: ChatParams }) {
  const { exit } = useApp()
  const [params, setParams] = useState(initial)
  const [entries, setEntries] = useState<Entry[]>([{ id: 0, kind: 'notice', text: `Чат с моделью ${initial.model}. /help — команды; Ctrl+C — остановить ответ или выйти.` }])
  const [input, setInput] = useState('')
  const [streaming, setStreaming] = useState<string | null>(null) // null: no reply in progress
  const [balance, setBalance] = useState<number | null>(null)
  const history = useRef<ChatMessage[]>([]) // what the model sees: this session's finished turns
  const abort = useRef<AbortController | null>(null)
  const nextId = useRef(1)
  const push = (e: NewEntry) => setEntries((list) => [...list, { ...e, id: nextId.current++ } as Entry])

  useEffect(() => {
    backend.balance().then(setBalance, (e) => push({ kind: 'error', text: describe(e) }))
  }, [backend])

  const [stopping, setStopping] = useState(false) // stopped; its charge not known yet

  useInput((ch, key) => {
    if (!(key.ctrl && ch === 'c')) return
    if (abort.current && !abort.current.signal.aborted) {
      abort.current.abort()
      setStopping(true)
    } else exit()
  })

  function command(line: string) {
    const [name, ...rest] = line.split(/\s+/)
    const arg = rest.join(' ')
    if (name === '/exit' || name === '/quit') return exit()
    if (name === '/help') return push({ kind: 'notice', text: HELP })
    if (name === '/clear') {
      history.current = []
      return push({ kind: 'notice', text: 'История очищена: следующий вопрос модель увидит без контекста.' })
    }
    if (name === '/model') {
      if (!arg) return push({ kind: 'notice', text: `Модель: ${params.model}. Сменить: /model ИМЯ (список: gw models)` })
      return void backend.checkModel(arg).then(
        (id) => {
          setParams((p) => ({ ...p, model: id }))
          push({ kind: 'notice', text: `Модель: ${id}` })
        },
        (e) => push({ kind: 'error', text: describe(e) }),
      )
    }
    push({ kind: 'error', text: `Неизвестная команда ${name}. ${HELP}` })
  }

  async function submit(raw: string) {
    const text = raw.trim()
    setInput('')
    if (!text || abort.current) return
    if (text.startsWith('/')) return command(text)
    push({ kind: 'user', text })
    const messages: ChatMessage[] = [...history.current, { role: 'user', content: text }]
    const ac = new AbortController()
    abort.current = ac
    let reply = ''
    setStreaming('')
    try {
      const { costRub } = await backend.reply(params, messages, (d) => setStreaming((reply += d)), ac.signal)
      // An unanswered question is not kept: the model would see it without its answer.
      if (reply) history.current = [...messages, { role: 'assistant', content: reply }]
      const left = await backend.balance().catch(() => null)
      if (left !== null) setBalance(left)
      push({ kind: 'assistant', model: params.model, text: reply, costRub, balance: left, stopped: ac.signal.aborted })
    } catch (e) {
      if (reply) push({ kind: 'notice', text: reply })
      push({ kind: 'error', text: describe(e) })
    } finally {
      abort.current = null
      setStreaming(null)
      setStopping(false)
    }
  }

  return (
    <Box flexDirection="column">
      <Static items={entries}>{(e) => <EntryView key={e.id} entry={e} />}</Static>
      {streaming !== null ? (
        <Box flexDirection="column">
          <Text color="cyan" bold>
            {params.model}:
          </Text>
          {streaming && <Text>{streaming}</Text>}
          {(stopping || !streaming) && (
            <Text>
              <Spinner type="dots" /> {stopping ? 'ответ остановлен, узнаём его стоимость…' : 'ждём ответ…'}
            </Text>
          )}
        </Box>
      ) : (
        <Box>
          <Text color="green">› </Text>
          <TextInput value={input} onChange={setInput} onSubmit={submit} placeholder="Сообщение или /help" />
        </Box>
      )}
      <Text dimColor>
        {params.model} · баланс: {balance === null ? '…' : rubles(balance)} · {streaming !== null && !stopping ? 'Ctrl+C — остановить ответ' : 'Ctrl+C — выход'}
      </Text>
    </Box>
  )
}

/** Runs the chat until /exit or Ctrl+C on an idle prompt. */
export async function runChat(backend: ChatBackend, params: ChatParams) {
  const app = render(<ChatView backend={backend} params={params} />, { exitOnCtrlC: false })
  await app.waitUntilExit()
}
