// The Ink views by their rendered frames (ink-testing-library), with a scripted chat backend.
import { afterEach, describe, expect, test } from 'bun:test'
import { cleanup, render } from 'ink-testing-library'
import type { ChatBackend, ChatMessage, ChatParams } from './lib/chat-client'
import { insufficientBalance } from './lib/errors'
import { ChatView } from './views/chat'
import { type Credentials, LoginForm } from './views/login'

afterEach(() => cleanup())

const tick = (ms = 50) => Bun.sleep(ms)

/**
 * The last frame once it contains every text (waits up to 3 s for a loaded CI machine, then
 * fails). Whitespace is flattened: lines wrap at the test terminal's 100 columns.
 */
async function frameWith(ui: { lastFrame(): string | undefined }, ...texts: string[]): Promise<string> {
  const flat = () => (ui.lastFrame() ?? '').replace(/\s+/g, ' ')
  const deadline = Date.now() + 3000
  while (!texts.every((t) => flat().includes(t))) {
    if (Date.now() > deadline) throw new Error(`the frame lacks ${JSON.stringify(texts)}:\n${ui.lastFrame()}`)
    await Bun.sleep(10)
  }
  return flat()
}
const ENTER = '\r'
const CTRL_C = '\x03'

async function type(stdin: { write(s: string): void }, text: string) {
  stdin.write(text)
  await tick()
  stdin.write(ENTER)
  await tick()
}

/** A backend whose reply is released piece by piece by the test, like a slow stream. */
function scriptedBackend(balances: number[] = [50, 49.876751], stoppedCost: string | null = null) {
  const calls: { params: ChatParams; messages: ChatMessage[] }[] = []
  let emit: (d: string) => void = () => {}
  let finish: (cost: string | null) => void = () => {}
  const backend: ChatBackend = {
    reply: (params, messages, onDelta, signal) =>
      new Promise((resolve) => {
        calls.push({ params, messages: structuredClone(messages) })
        emit = onDelta
        finish = (costRub) => resolve({ costRub })
        // the real backend answers a stopped reply with its charge once the server has settled it
        signal.addEventListener('abort', () => resolve({ costRub: stoppedCost }))
      }),
    balance: async () => balances.shift() ?? 0,
    checkModel: async (id) => {
      if (id === 'nope/nope') throw new Error('Модель nope/nope не найдена')
      return id
    },
  }
  return { backend, calls, emit: (d: string) => emit(d), finish: (cost: string | null) => finish(cost) }
}

describe('chat view', () => {
  test('streams the reply, then shows its cost and the remaining balance', async () => {
    const s = scriptedBackend()
    const ui = render(<ChatView backend={s.backend} params={{ model: 'openai/gpt-3.5-turbo' }} />)
    await frameWith(ui, 'Чат с моделью openai/gpt-3.5-turbo', 'баланс: 50,00 ₽')

    await type(ui.stdin, 'Привет')
    await frameWith(ui, 'Вы: Привет', 'Ctrl+C — остановить ответ')
    s.emit('Здравствуйте')
    expect(await frameWith(ui, 'Здравствуйте')).not.toContain('Стоимость')
    s.emit(', чем помочь?')
    s.finish('0.003249')
    const frame = await frameWith(ui, 'Стоимость')
    expect(frame).toContain('Здравствуйте, чем помочь?')
    expect(frame).toContain('Стоимость: 0,003249 ₽ · баланс: 49,88 ₽')
    expect(frame).toContain('Ctrl+C — выход')
    expect(s.calls[0]!.messages).toEqual([{ role: 'user', content: 'Привет' }])
  })

  test('keeps the session history and switches the model with /model', async () => {
    const s = scriptedBackend([50, 49.9, 49.8])
    const ui = render(<ChatView backend={s.backend} params={{ model: 'openai/gpt-3.5-turbo', temperature: 0.2 }} />)
    await frameWith(ui, 'баланс: 50,00 ₽')
    await type(ui.stdin, 'Первый вопрос')
    s.emit('Первый ответ')
    s.finish('0.1')
    await frameWith(ui, 'Стоимость: 0,1000 ₽')
    await type(ui.stdin, '/model anthropic/claude-3-haiku')
    await frameWith(ui, 'Модель: anthropic/claude-3-haiku', 'anthropic/claude-3-haiku · баланс')
    await type(ui.stdin, '/model nope/nope')
    await frameWith(ui, 'Модель nope/nope не найдена')
    await type(ui.stdin, 'Второй вопрос')
    await frameWith(ui, 'Вы: Второй вопрос')
    expect(s.calls[1]!.params).toEqual({ model: 'anthropic/claude-3-haiku', temperature: 0.2 })
    expect(s.calls[1]!.messages).toEqual([
      { role: 'user', content: 'Первый вопрос' },
      { role: 'assistant', content: 'Первый ответ' },
      { role: 'user', content: 'Второй вопрос' },
    ])
    s.finish('0.1')
    await frameWith(ui, 'баланс: 49,80 ₽')
    await type(ui.stdin, '/clear')
    await frameWith(ui, 'История очищена')
    await type(ui.stdin, 'Третий')
    await frameWith(ui, 'Вы: Третий')
    expect(s.calls[2]!.messages).toEqual([{ role: 'user', content: 'Третий' }])
  })

  test('Ctrl+C stops the reply, which shows its charge and the balance after it; a second Ctrl+C exits', async () => {
    const s = scriptedBackend([50, 49.99], '0.0123')
    const ui = render(<ChatView backend={s.backend} params={{ model: 'openai/gpt-4' }} />)
    await frameWith(ui, 'баланс: 50,00 ₽')
    await type(ui.stdin, 'Длинная история')
    s.emit('Жили-были')
    await frameWith(ui, 'Жили-были')
    ui.stdin.write(CTRL_C)
    const frame = await frameWith(ui, 'Ответ остановлен')
    expect(frame).toContain('Жили-были')
    expect(frame).toContain('Ответ остановлен. Стоимость: 0,0123 ₽ · баланс: 49,99 ₽')
    expect(ui.stdin.listenerCount('readable')).toBeGreaterThan(0) // still running
    ui.stdin.write(CTRL_C)
    await tick()
    // Ink stops reading the keyboard once the app has exited.
    expect(ui.stdin.listenerCount('readable')).toBe(0)
  })

  test('an error is one line with its hint, and the chat goes on', async () => {
    const s = scriptedBackend()
    s.backend.reply = async () => {
      throw insufficientBalance('Недостаточно средств на балансе для этого запроса. Пополните баланс.')
    }
    const ui = render(<ChatView backend={s.backend} params={{ model: 'openai/gpt-4' }} />)
    await frameWith(ui, 'баланс: 50,00 ₽')
    await type(ui.stdin, 'Привет')
    const frame = await frameWith(ui, 'Ошибка')
    expect(frame).toContain('Ошибка: Недостаточно средств на балансе для этого запроса. Пополните баланс. — пополнить: `gw topup 500`')
    expect(frame).toContain('› Сообщение или /help')
  })
})

describe('login form', () => {
  test('asks for the e-mail, then masks the password', async () => {
    let submitted: Credentials | undefined
    const ui = render(<LoginForm onSubmit={(c) => (submitted = c)} />)
    expect(await frameWith(ui, 'E-mail:')).not.toContain('Пароль:')
    await type(ui.stdin, 'ivan@example.ru')
    ui.stdin.write('secret-42')
    const frame = await frameWith(ui, 'Пароль: *********')
    expect(frame).toContain('E-mail: ivan@example.ru')
    expect(frame).not.toContain('secret-42')
    await tick()
    ui.stdin.write(ENTER)
    await tick()
    expect(submitted).toEqual({ email: 'ivan@example.ru', password: 'secret-42' })
  })

  test('a pasted e-mail arrives with its Enter in one piece: it is taken as typed and Enter pressed', async () => {
    let submitted: Credentials | undefined
    const ui = render(<LoginForm onSubmit={(c) => (submitted = c)} />)
    await frameWith(ui, 'E-mail:')
    ui.stdin.write('ivan@example.ru\r')
    const frame = await frameWith(ui, 'Пароль:')
    expect(frame).toContain('E-mail: ivan@example.ru Пароль:')
    ui.stdin.write('secret-42')
    await tick()
    ui.stdin.write(ENTER)
    await tick()
    expect(submitted).toEqual({ email: 'ivan@example.ru', password: 'secret-42' })
  })

  test('with --email given it asks only for the password', async () => {
    const ui = render(<LoginForm initialEmail="ivan@example.ru" onSubmit={() => {}} />)
    await frameWith(ui, 'E-mail: ivan@example.ru', 'Пароль:')
  })
})
