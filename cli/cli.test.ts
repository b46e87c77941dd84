// The CLI as a real process (`bun cli/index.ts …`) against the real server and the fake upstream.
// Each test signs in with its own config dir (XDG_CONFIG_HOME), as a separate user would.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { render } from 'ink-testing-library'
import { createElement } from 'react'
import pkg from '../package.json'
import { oggOpus, toneWav } from '../src/test-support/audio'
import { eventually, startGateway } from '../src/test-support/gateway'
import { registerUser, signJwt } from '../src/test-support/server'
import { teamsOn } from '../src/test-support/teams'
import { createApi } from './lib/api'
import { createChatBackend } from './lib/chat-client'
import { type ConfigData, createConfigStore } from './lib/config'
import { price } from './lib/format'
import { ChatView } from './views/chat'

// A test runs gw many times (the activity one, a dozen): past bun's 5 s on a busy machine.
setDefaultTimeout(20_000)
const ENTRY = new URL('./index.ts', import.meta.url).pathname
let gw: Awaited<ReturnType<typeof startGateway>>

beforeAll(async () => {
  // 1 ₽ of welcome bonus: cheap replies go through, an expensive max_tokens is refused with 402.
  gw = await startGateway({ WELCOME_BONUS_RUB: '1' }, { tokenDelayMs: 15 })
})
const dirs: string[] = []
afterAll(async () => {
  await gw.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

type Run = { code: number; stdout: string; stderr: string }
function freshConfig() {
  const dir = mkdtempSync(join(tmpdir(), 'gw-cli-'))
  dirs.push(dir)
  return dir
}

function spawn(args: string[], config: string, stdin?: string) {
  return Bun.spawn(['bun', ENTRY, ...args], {
    env: { PATH: process.env.PATH!, HOME: config, XDG_CONFIG_HOME: config, GW_SERVER: gw.url, NO_COLOR: '1' },
    stdin: stdin === undefined ? 'ignore' : new Blob([stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
  })
}

async function cli(args: string[], config: string, stdin?: string): Promise<Run> {
  const proc = spawn(args, config, stdin)
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

/** Runs a command that must succeed and returns its stdout. */
async function ok(args: string[], config: string, stdin?: string): Promise<string> {
  const r = await cli(args, config, stdin)
  if (r.code !== 0) throw new Error(`gw ${args.join(' ')} → ${r.code}\n${r.stderr}`)
  return r.stdout
}
const json = async <T = any>(args: string[], config: string): Promise<T> => JSON.parse(await ok([...args, '--json'], config))

/** A registered account signed in through `gw login` in its own config dir. */
async function signedIn() {
  const user = await registerUser(gw.url)
  const config = freshConfig()
  await ok(['login', '--email', user.email, '--password', user.password], config)
  return { ...user, config }
}

const configFile = (dir: string) => join(dir, 'ai-gateway', 'config.json')
const readConfig = (dir: string) => JSON.parse(readFileSync(configFile(dir), 'utf8')) as ConfigData

/** A port nothing listens on. */
function closedPort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = s.port
  s.stop(true)
  return port
}

/** One line on stderr, nothing on stdout. */
function expectOneLineError(r: Run, code: number, ...parts: string[]) {
  expect(r.code).toBe(code)
  expect(r.stdout).toBe('')
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
  for (const p of parts) expect(r.stderr).toContain(p)
}

/**
 * The CLI in a pseudo-terminal (util-linux `script`), for what needs one: questions asked only
 * of a person at a terminal, the sign-in prompt. What is written arrives as typed or pasted.
 */
function inTerminal(args: string[], config: string) {
  const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`
  const proc = Bun.spawn(['script', '-qfec', ['bun', ENTRY, ...args].map(quote).join(' '), '/dev/null'], {
    env: { PATH: process.env.PATH!, HOME: config, XDG_CONFIG_HOME: config, GW_SERVER: gw.url, NO_COLOR: '1', TERM: 'xterm' },
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let out = ''
  const reading = (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of proc.stdout) out += decoder.decode(chunk, { stream: true })
  })()
  return {
    output: () => out,
    write(text: string) {
      proc.stdin.write(text)
      proc.stdin.flush()
    },
    waitFor: (text: string) => eventually(() => out.includes(text), 15_000),
    exited: proc.exited.then(async (code) => {
      await reading
      return code
    }),
  }
}

describe('basics', () => {
  test('--version and Russian --help on every level', async () => {
    const dir = freshConfig()
    expect((await ok(['--version'], dir)).trim()).toBe(pkg.version)
    const help = await ok(['--help'], dir)
    for (const c of ['login', 'logout', 'whoami', 'balance', 'transactions', 'usage', 'topup', 'keys', 'models', 'chat', 'transcribe', 'speak']) expect(help).toContain(c)
    expect(help).toContain('Использование: gw')
    expect(await ok(['keys', '--help'], dir)).toContain('create [параметры] <название>')
    expect(await ok(['keys', 'create', '--help'], dir)).toContain('Использование: gw keys create')
    expect(await ok(['chat', '--help'], dir)).toContain('--max-tokens <N>')
  })

  test('usage errors exit 2 with a pointer to --help', async () => {
    const dir = freshConfig()
    expectOneLineError(await cli(['keys', 'create'], dir), 2, 'не указан аргумент «название»', 'gw keys create --help')
    expectOneLineError(await cli(['usage', '--period', '5d'], dir), 2, '7d, 30d, 90d, all')
    expectOneLineError(await cli(['chat', '--temperature', '3', 'hi'], dir), 2, 'от 0 до 2')
    expectOneLineError(await cli(['frobnicate'], dir), 2, 'неизвестная команда')
  })

  test('not signed in: one line with the `gw login` hint, exit 3', async () => {
    const dir = freshConfig()
    for (const args of [['balance'], ['whoami'], ['keys', 'list'], ['chat', 'hi']]) expectOneLineError(await cli(args, dir), 3, 'Вы не вошли', 'gw login')
  })

  test('server unreachable: hint about --server, exit 5', async () => {
    const dir = freshConfig()
    const dead = `http://127.0.0.1:${closedPort()}`
    expectOneLineError(await cli(['--server', dead, 'models'], dir), 5, `Сервер ${dead} недоступен`, '--server')
    expectOneLineError(await cli(['--server', dead, 'login', '-e', 'a@b.ru', '-p', 'x'], dir), 5, '--server')
  })
})

describe('account', () => {
  test('login stores the tokens (mode 0600); whoami shows the account', async () => {
    const user = await registerUser(gw.url)
    const dir = freshConfig()
    const out = await ok(['login', '--email', user.email, '--password', user.password], dir)
    expect(out).toContain(`Вы вошли как ${user.email}`)
    expect(statSync(configFile(dir)).mode & 0o777).toBe(0o600)
    const saved = readConfig(dir)
    expect(saved.server).toBe(gw.url)
    expect(saved.session?.email).toBe(user.email)
    expect(saved.session?.refreshToken).toBeTruthy()

    const who = await ok(['whoami'], dir)
    expect(who).toContain(user.email)
    expect(who).toContain('1,00 ₽')
    const data = await json(['whoami'], dir)
    expect(data).toMatchObject({ email: user.email, role: 'user', balance: 1, server: gw.url })
  })

  test('in a terminal: an e-mail pasted with its Enter, then the password', async () => {
    const user = await registerUser(gw.url)
    const dir = freshConfig()
    const term = inTerminal(['login'], dir)
    await term.waitFor('E-mail:')
    term.write(`${user.email}\r`) // a paste: the address and its line break in one piece
    await term.waitFor('Пароль:')
    term.write(user.password)
    await Bun.sleep(100)
    term.write('\r')
    expect(await term.exited).toBe(0)
    expect(term.output()).toContain(`Вы вошли как ${user.email}`)
    expect(readConfig(dir).session?.email).toBe(user.email)
  })

  test('a wrong password is refused with exit 3 and nothing is stored', async () => {
    const user = await registerUser(gw.url)
    const dir = freshConfig()
    expectOneLineError(await cli(['login', '-e', user.email, '-p', 'wrong-password'], dir), 3, 'Неверный')
    expect(() => readConfig(dir)).toThrow()
  })

  test('login without a terminal needs the flags', async () => {
    expectOneLineError(await cli(['login'], freshConfig()), 2, '--email и --password')
  })

  test('an expired access token is renewed with the refresh token, which rotates', async () => {
    const { config, user } = await signedIn()
    const before = readConfig(config)
    const expired = signJwt({ sub: user.id, exp: Math.floor(Date.now() / 1000) - 60 })
    writeFileSync(configFile(config), JSON.stringify({ ...before, session: { ...before.session, accessToken: expired } }), { mode: 0o600 })

    expect((await json(['balance'], config)).balance).toBe(1)
    const after = readConfig(config)
    expect(after.session!.accessToken).not.toBe(expired)
    expect(after.session!.refreshToken).not.toBe(before.session!.refreshToken)

    // /v1 through the openai package renews the same way.
    const again = readConfig(config)
    writeFileSync(configFile(config), JSON.stringify({ ...again, session: { ...again.session, accessToken: expired } }), { mode: 0o600 })
    expect(await ok(['chat', '-m', 'openai/gpt-3.5-turbo', 'Привет'], config)).toContain('Демо-ответ')
    expect(readConfig(config).session!.refreshToken).not.toBe(again.session!.refreshToken)

    // The first refresh token was spent by the renewal: the server refuses it now.
    const reuse = await fetch(`${gw.url}/api/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: before.session!.refreshToken }),
    })
    expect(reuse.status).toBe(401)
  })

  test('parallel gw processes renew once between them, so the rotating refresh token is never reused', async () => {
    const { config, user } = await signedIn()
    const s = readConfig(config)
    const expired = signJwt({ sub: user.id, exp: Math.floor(Date.now() / 1000) - 60 })
    writeFileSync(configFile(config), JSON.stringify({ ...s, session: { ...s.session, accessToken: expired } }), { mode: 0o600 })
    const runs = await Promise.all([1, 2, 3].map(() => cli(['balance', '--json'], config)))
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0])
    // A reused refresh token would have revoked the whole session; it is still alive.
    expect((await json(['whoami'], config)).email).toBe(user.email)
  })

  test('logout revokes the session on the server and forgets it locally', async () => {
    const { config } = await signedIn()
    const { refreshToken } = readConfig(config).session!
    expect(await ok(['logout'], config)).toContain('Вы вышли из аккаунта')
    expect(readConfig(config).session).toBeUndefined()
    const refresh = await fetch(`${gw.url}/api/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refreshToken }) })
    expect(refresh.status).toBe(401)
    expectOneLineError(await cli(['whoami'], config), 3, 'gw login')
    expect(await ok(['logout'], config)).toContain('Вы не были авторизованы')
  })

  test('a revoked session ends with "Сессия истекла" and exit 3', async () => {
    const { config, user } = await signedIn()
    const s = readConfig(config)
    // Another device logged this session out; the access token has also expired.
    await fetch(`${gw.url}/api/auth/logout`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refreshToken: s.session!.refreshToken }) })
    const expired = signJwt({ sub: user.id, exp: Math.floor(Date.now() / 1000) - 60 })
    writeFileSync(configFile(config), JSON.stringify({ ...s, session: { ...s.session, accessToken: expired } }), { mode: 0o600 })
    expectOneLineError(await cli(['balance'], config), 3, 'Сессия истекла', 'gw login')
    expect(readConfig(config).session).toBeUndefined()
  })
})

describe('keys', () => {
  test('create shows the key once, list shows its prefix, rename/disable/delete', async () => {
    const { config } = await signedIn()
    const created = await ok(['keys', 'create', 'ноутбук'], config)
    const key = created.match(/sk-gw-\S+/)?.[0]
    expect(key).toBeTruthy()
    expect(created).toContain('показывается только один раз')

    const viaJson = await json<{ id: string; key: string; name: string }>(['keys', 'create', 'сервер'], config)
    expect(viaJson.key.startsWith('sk-gw-')).toBe(true)

    const list = await json<{ id: string; name: string; keyPrefix: string; isActive: boolean }[]>(['keys', 'list'], config)
    expect(list.map((k) => k.name).sort()).toEqual(['ноутбук', 'сервер'])
    const table = await ok(['keys', 'list'], config)
    expect(table).toContain('ноутбук')
    expect(table).toContain(`${list.find((k) => k.name === 'сервер')!.keyPrefix}…`)
    expect(table).not.toContain(key!) // never the whole key again

    // The new key really opens /v1.
    const v1 = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${viaJson.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(v1.status).toBe(200)

    // Addressed by name (any case) or by the beginning of the ID that the list shows.
    expect(await ok(['keys', 'rename', 'Сервер', 'прод'], config)).toContain('Ключ «сервер» переименован в «прод»')
    expect(await ok(['keys', 'disable', viaJson.id.slice(0, 13)], config)).toContain('«прод» отключён')
    expect((await json<{ id: string; isActive: boolean }[]>(['keys'], config)).find((k) => k.id === viaJson.id)).toMatchObject({ isActive: false })
    expect(await ok(['keys', 'enable', viaJson.id], config)).toContain('включён')
    expectOneLineError(await cli(['keys', 'disable', 'планшет'], config), 2, 'Ключ «планшет» не найден', 'gw keys list')

    // Without a terminal there is nobody to confirm: --yes says it.
    expectOneLineError(await cli(['keys', 'delete', 'прод'], config), 2, 'Нужно подтверждение', '--yes')
    expect(await ok(['keys', 'delete', 'прод', '--yes'], config)).toContain('Ключ «прод» удалён')
    expect((await json<{ id: string }[]>(['keys', 'list'], config)).map((k) => k.id)).not.toContain(viaJson.id)
    expectOneLineError(await cli(['keys', 'delete', viaJson.id, '-y'], config), 2, 'не найден')
  })

  test('keys list fits 80 columns with short IDs', async () => {
    const { config } = await signedIn()
    await ok(['keys', 'create', 'ключ с очень длинным названием для продакшен-сервера и стенда'], config)
    await ok(['keys', 'create', 'второй'], config)
    const [a, b] = await json<{ id: string }[]>(['keys', 'list'], config)
    const text = await ok(['keys', 'list'], config)
    for (const line of text.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(80)
    // Two keys made a moment apart share the start of their UUIDv7 IDs: as many characters as tell them apart.
    let n = 8
    while (a!.id.slice(0, n) === b!.id.slice(0, n)) n++
    expect(text).toContain(`${a!.id.slice(0, n)}  `)
    expect(text).not.toContain(a!.id)
    expect(text).toContain('ключ с очень')
  })

  test('delete asks in a terminal: «n» keeps the key, «y» deletes it', async () => {
    const { config } = await signedIn()
    await ok(['keys', 'create', 'ноутбук'], config)
    const no = inTerminal(['keys', 'delete', 'ноутбук'], config)
    await no.waitFor('Удалить ключ «ноутбук» (sk-gw-')
    no.write('n\r')
    expect(await no.exited).toBe(1)
    expect(no.output()).toContain('Ключ не удалён')
    expect((await json<{ name: string }[]>(['keys', 'list'], config)).map((k) => k.name)).toEqual(['ноутбук'])

    const yes = inTerminal(['keys', 'delete', 'ноутбук'], config)
    await yes.waitFor('[y/N]')
    yes.write('y\r')
    expect(await yes.exited).toBe(0)
    expect(yes.output()).toContain('Ключ «ноутбук» удалён')
    expect(await json(['keys', 'list'], config)).toEqual([])
  })
})

describe('models', () => {
  test('search and provider filter; prices by the spec rule', async () => {
    const dir = freshConfig()
    const claude = await json<{ id: string }[]>(['models', 'claude'], dir)
    expect(claude.map((m) => m.id)).toEqual(['anthropic/claude-3-haiku'])
    const openai = await json<{ id: string; pricing: { prompt: string } }[]>(['models', '--provider', 'openai'], dir)
    expect(openai.length).toBeGreaterThan(2)
    expect(openai.every((m) => m.id.startsWith('openai/'))).toBe(true)

    const table = await ok(['models', '--provider', 'openai'], dir)
    const mini = openai.find((m) => m.id === 'openai/gpt-4o-mini')!
    const per1M = Number(mini.pricing.prompt) * 1_000_000 // prices per 1M tokens, as on the web
    expect(table).toContain(price(per1M))
    expect(table).toContain('в рублях за 1M токенов')
    expect(table).not.toContain('1K')
    expect(table).toContain('openai/gpt-4 ')
    expect(await ok(['models', 'нет-такой-модели'], dir)).toContain('Ничего не найдено')
  })

  test('picture prices are labelled by direction: sent to the model or drawn by it', async () => {
    const dir = freshConfig()
    const all = await json<{ id: string; pricing: { image: string; image_output?: string } }[]>(['models'], dir)
    const drawer = all.find((m) => Number(m.pricing.image_output ?? 0) > 0)!
    const drawn = await ok(['models', drawer.id], dir)
    expect(drawn).toContain('Сгенерир. изобр.')
    expect(drawn).toContain('«Сгенерир. изобр.» — за сгенерированное изображение')
    expect(drawn).toContain(price(Number(drawer.pricing.image_output)))
    const seer = all.find((m) => Number(m.pricing.image) > 0 && !Number(m.pricing.image_output ?? 0))!
    expect(await ok(['models', seer.id], dir)).toContain('«Входное изобр.» — за входное изображение')
  })
})

describe('chat and money', () => {
  test('a piped prompt prints only the reply, streamed as it arrives', async () => {
    const { config } = await signedIn()
    const proc = spawn(['chat', '-m', 'anthropic/claude-3-haiku'], config, 'Расскажи про Москву')
    const started = performance.now()
    const arrivals: number[] = []
    let out = ''
    const decoder = new TextDecoder()
    for await (const chunk of proc.stdout) {
      arrivals.push(performance.now() - started)
      out += decoder.decode(chunk, { stream: true })
    }
    expect(await proc.exited).toBe(0)
    expect(await new Response(proc.stderr).text()).toBe('')
    expect(out).toStartWith('Демо-ответ: вы написали «Расскажи про Москву».')
    expect(out.endsWith('\n')).toBe(true)
    // Many writes spread over time, not one block at the end (15 ms per token upstream).
    expect(arrivals.length).toBeGreaterThan(5)
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(100)
  })

  test('balance after a chat is lower by exactly the reported cost', async () => {
    const { config } = await signedIn()
    const before = (await json<{ balance: number }>(['balance'], config)).balance
    const r = await cli(['chat', '-m', 'anthropic/claude-3-haiku', '--cost', 'Сколько это стоит?'], config)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Демо-ответ')
    const cost = Number(r.stderr.match(/Стоимость: ([\d,]+) ₽/)![1]!.replace(',', '.'))
    expect(cost).toBeGreaterThan(0)
    const after = (await json<{ balance: number }>(['balance'], config)).balance
    expect(Math.round((before - after) * 1e6)).toBe(Math.round(cost * 1e6))
    expect(r.stderr).toContain(`баланс: ${after.toFixed(2).replace('.', ',')} ₽`) // balances with two decimals

    const [last] = await json<{ amount: string; type: string }[]>(['transactions'], config)
    expect(last).toMatchObject({ type: 'usage' })
    expect(Number(last!.amount)).toBeCloseTo(-cost, 6)
    const usage = await json<{ totalRequests: number; logs: { cost: number; model: string }[] }>(['usage', '--period', '7d'], config)
    expect(usage.totalRequests).toBe(1)
    expect(usage.logs[0]).toMatchObject({ model: 'anthropic/claude-3-haiku' })
    expect(usage.logs[0]!.cost).toBeCloseTo(cost, 6)
    expect(await ok(['usage'], config)).toContain('anthropic/claude-3-haiku')
    expect(await ok(['transactions'], config)).toContain('Приветственный бонус')
  })

  test('the Ink chat against the real server: streamed text, then cost and balance', async () => {
    const { config } = await signedIn()
    const api = createApi(gw.url, createConfigStore(join(config, 'ai-gateway')))
    const ui = render(createElement(ChatView, { backend: createChatBackend(api), params: { model: 'openai/gpt-3.5-turbo' } }))
    await Bun.sleep(300)
    ui.stdin.write('Привет из терминала')
    await Bun.sleep(50)
    ui.stdin.write('\r')
    const deadline = Date.now() + 10_000
    while (!ui.lastFrame()!.includes('Стоимость') && Date.now() < deadline) await Bun.sleep(50)
    const frame = ui.lastFrame()!.replace(/\s+/g, ' ')
    expect(frame).toContain('Демо-ответ: вы написали «Привет из терминала».')
    const [, cost, left] = frame.match(/Стоимость: ([\d,]+) ₽ · баланс: ([\d,]+) ₽/)!
    const balance = (await api.get<{ balance: number }>('/api/billing/balance')).balance
    expect(left).toBe(balance.toFixed(2).replace('.', ','))
    expect(Math.round((1 - balance) * 1e6)).toBe(Math.round(Number(cost!.replace(',', '.')) * 1e6))
    ui.unmount()
  })

  test('a reply stopped midway: its charge, found in the log by our x-request-id, is in the balance after it', async () => {
    const { config } = await signedIn()
    const api = createApi(gw.url, createConfigStore(join(config, 'ai-gateway')))
    const backend = createChatBackend(api)
    const before = await backend.balance()
    const ac = new AbortController()
    let text = ''
    const { costRub } = await backend.reply(
      { model: 'openai/gpt-3.5-turbo', maxTokens: 200 },
      [{ role: 'user', content: 'Расскажи длинную историю про терминалы и их пользователей' }],
      (d) => {
        text += d
        if (text.length > 20) ac.abort()
      },
      ac.signal,
    )
    expect(ac.signal.aborted).toBe(true)
    expect(Number(costRub)).toBeGreaterThan(0)
    const [last] = await api.get<{ amount: string; type: string }[]>('/api/billing/transactions?limit=1')
    expect(last).toMatchObject({ type: 'usage' })
    expect(Number(last!.amount)).toBeCloseTo(-Number(costRub), 6)
    expect(await backend.balance()).toBeCloseTo(before - Number(costRub), 6)
  })

  test('/model takes a unique fragment of the id or the name', async () => {
    const { config } = await signedIn()
    const backend = createChatBackend(createApi(gw.url, createConfigStore(join(config, 'ai-gateway'))))
    expect(await backend.checkModel('haiku')).toBe('anthropic/claude-3-haiku')
    expect(await backend.checkModel('openai/gpt-4')).toBe('openai/gpt-4')
    await expect(backend.checkModel('gpt')).rejects.toThrow(/Под «gpt» подходят \d+ модел/)
    await expect(backend.checkModel('нет-такой')).rejects.toThrow('Модель «нет-такой» не найдена')
  })

  test('insufficient balance: 402 with the top-up hint, exit 4', async () => {
    const { config } = await signedIn()
    // 4000 tokens of GPT-4 cost ~29 ₽; the account has 1 ₽.
    expectOneLineError(await cli(['chat', '-m', 'openai/gpt-4', '--max-tokens', '4000', 'Привет'], config), 4, 'Недостаточно средств', 'gw topup 500')
  })

  test('unknown model and a mid-stream failure are one-line errors', async () => {
    const { config } = await signedIn()
    expectOneLineError(await cli(['chat', '-m', 'nope/nope', 'hi'], config), 1, 'nope/nope', 'gw models')
    const broken = await cli(['chat', '-m', 'openai/gpt-3.5-turbo', 'hi [[fault:midstream]]'], config)
    expect(broken.code).toBe(1)
    expect(broken.stderr).toStartWith('Ошибка: ')
    expect(await cli(['chat'], config)).toMatchObject({ code: 2 }) // nothing on stdin
  })

  test('topup prints the payment link; paying it raises the balance', async () => {
    const { config } = await signedIn()
    const out = await ok(['topup', '500'], config)
    expect(out).toContain('Платёж на 500,00 ₽ создан')
    // Not a terminal here: no browser is opened, and it says where the link is.
    expect(out).toContain('браузер не открываем: откройте ссылку выше в браузере')
    expect(await ok(['topup', '500', '--no-open'], config)).toContain('\nОткройте ссылку выше в браузере')
    expect((await ok(['topup', '--help'], config)).replace(/\s+/g, ' ')).toContain('если браузер открыть нельзя — печатает её')
    const url = out.match(/https?:\/\/\S+/)?.[0]
    expect(url).toContain('/pay/test/')

    const payment = await json<{ id: string; status: string; amount: number; confirmationUrl: string }>(['topup', '250,50'], config)
    expect(payment).toMatchObject({ status: 'pending', amount: 250.5 })
    const providerId = payment.confirmationUrl.split('/pay/test/')[1]!
    const paid = await fetch(`${gw.url}/api/payments/test/${providerId}/pay`, { method: 'POST' })
    expect(paid.status).toBe(200)
    expect((await json<{ balance: number }>(['balance'], config)).balance).toBe(251.5)

    expectOneLineError(await cli(['topup', '50'], config), 1, 'Минимальная сумма пополнения: 100 RUB')
    expectOneLineError(await cli(['topup', 'много'], config), 2, 'сумма — число в рублях')
  })
})

describe('activity', () => {
  test('gw activity: newest first, filters as flags, pages by cursor, --json, one request in full', async () => {
    const { config } = await signedIn()
    await ok(['keys', 'create', 'сервер'], config)
    const server = (await json<{ key: string }>(['keys', 'create', 'ноутбук'], config)).key
    const ask = (model: string, content: string, key = server) =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content }], max_tokens: 10 }),
      })
    for (let i = 0; i < 3; i++) expect((await ask('openai/gpt-3.5-turbo', `вопрос ${i}`)).status).toBe(200)
    expect((await ask('anthropic/claude-3-haiku', 'другая модель')).status).toBe(200)
    expect((await ask('openai/gpt-3.5-turbo', 'сломается [[fault:http400]]')).status).toBe(400)
    await ok(['chat', '-m', 'openai/gpt-3.5-turbo', 'из терминала'], config) // the session: no key

    const text = await ok(['activity'], config)
    const lines = text.trimEnd().split('\n')
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80)
    expect(lines[0]).toMatch(/^Время \(МСК\)\s+Модель\s+Ключ\s+Статус\s+Объём\s+Стоимость$/)
    expect(lines[2]).toContain('Веб-сессия') // the newest: the chat of this terminal
    expect(lines.filter((l) => l.includes('ноутбук'))).toHaveLength(5)
    expect(text).toContain('ошибка')

    const page = await json<{ items: { id: string; model: string; status: string; keyName: string | null; costRub: number }[]; nextCursor: string | null }>(
      ['activity', '-n', '2'],
      config,
    )
    expect(page.items).toHaveLength(2)
    expect(page.nextCursor).toBeTruthy()
    const more = await ok(['activity', '-n', '2'], config)
    expect(more).toContain(`Ещё запросы: gw activity --after ${page.nextCursor}`)
    const next = await json<{ items: { id: string }[] }>(['activity', '-n', '2', '--after', page.nextCursor!], config)
    expect(next.items.map((i) => i.id)).not.toContain(page.items[0]!.id)
    const all = await json<{ id: string }[]>(['activity', '--all'], config)
    expect(all).toHaveLength(6)

    // Filters: key by name, model, status, Moscow dates.
    expect(await json<unknown[]>(['activity', '--all', '-k', 'сервер'], config)).toEqual([])
    expect(await json<unknown[]>(['activity', '--all', '-k', 'Ноутбук'], config)).toHaveLength(5)
    expect(await json<unknown[]>(['activity', '--all', '-k', 'web'], config)).toHaveLength(1)
    expect(await json<unknown[]>(['activity', '--all', '-m', 'anthropic/claude-3-haiku'], config)).toHaveLength(1)
    const failed = await json<{ status: string; costRub: number }[]>(['activity', '--all', '--status', 'error'], config)
    expect(failed).toMatchObject([{ status: 'error', costRub: 0 }])
    const tomorrow = new Date(Date.now() + 86_400_000 + 3 * 3_600_000).toISOString().slice(0, 10)
    expect(await json<unknown[]>(['activity', '--all', '--from', tomorrow], config)).toEqual([])
    expect(await json<unknown[]>(['activity', '--all', '--to', tomorrow], config)).toHaveLength(6)
    expect(await ok(['activity', '--from', tomorrow], config)).toContain('По этим фильтрам запросов нет.')
    expectOneLineError(await cli(['activity', '--status', 'done'], config), 2, 'статус — один из: success, error, cancelled', 'gw activity --help')
    expectOneLineError(await cli(['activity', '--from', '01.05.2025'], config), 2, 'ГГГГ-ММ-ДД')
    expectOneLineError(await cli(['activity', '-k', 'планшет'], config), 2, 'Ключ «планшет» не найден')

    // One request in full: its charge equals its ledger row, the formula its factors.
    const [haiku] = await json<{ id: string }[]>(['activity', '--all', '-m', 'anthropic/claude-3-haiku'], config)
    const d = await json<{ costMicros: number; formulaMicros: number; ledger: { amountMicros: number }; rate: string; markup: string; upstreamCostUsd: string }>(
      ['activity', haiku!.id],
      config,
    )
    expect(d.ledger.amountMicros).toBe(-d.costMicros)
    expect(d.formulaMicros).toBe(d.costMicros)
    const shown = await ok(['activity', haiku!.id], config)
    const exact = `${new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(d.costMicros / 1e6)} ₽`
    const line = (label: string) =>
      shown
        .split('\n')
        .find((l) => l.startsWith(`${label} `))
        ?.slice(label.length)
        .trim()
    expect(line('Списано')).toBe(exact)
    expect(line('В истории')).toStartWith(`-${exact} (баланс после: `)
    expect(line('Расчёт')).toBe(`$${d.upstreamCostUsd} × ${d.rate} ₽/$ × ${d.markup} = ${exact}`)
    expect(line('Ответила модель')).toBe('anthropic/claude-3-haiku')
    expect(shown).toMatch(/x-request-id\s+req_/)
    const stranger = await signedIn()
    expectOneLineError(await cli(['activity', haiku!.id], stranger.config), 1, 'Запрос не найден')
  })
})

describe('teams', () => {
  test('team list and use: keys, balance, usage and chat then act in the team; personal switches back', async () => {
    const owner = await signedIn()
    const teams = teamsOn(gw.url, gw.server.dataDir)
    const created = await fetch(`${gw.url}/api/teams`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Терминал' }),
    })
    const team = (await created.json()).data as { id: string }
    await teams.topUp(owner, team.id, 100)

    const list = await ok(['team', 'list'], owner.config)
    expect(list).toMatch(/\*\s+Личный аккаунт/)
    expect(list).toContain('Терминал')
    expect(list).toContain('владелец')
    expectOneLineError(await cli(['team', 'use', 'Нет такой'], owner.config), 2, 'Команда «Нет такой» не найдена', 'Терминал')
    expect(await ok(['team', 'use', 'терминал'], owner.config)).toContain('Теперь вы работаете в команде «Терминал» (роль: владелец)')
    expect(readConfig(owner.config).team).toEqual({ id: team.id, name: 'Терминал' })
    expect(await ok(['team'], owner.config)).toMatch(/\*\s+Терминал/)

    // In the team: its balance, a key of the team, a chat paid by the team.
    expect(await ok(['balance'], owner.config)).toContain('Баланс команды «Терминал»: 100,00 ₽')
    const key = await json<{ id: string; teamId: string | null }>(['keys', 'create', 'командный'], owner.config)
    expect(key.teamId).toBe(team.id)
    const r = await cli(['chat', '-m', 'anthropic/claude-3-haiku', '--cost', 'Привет команде'], owner.config)
    expect(r.code).toBe(0)
    const cost = Number(r.stderr.match(/Стоимость: ([\d,]+) ₽/)![1]!.replace(',', '.'))
    expect((await json<{ balance: number }>(['balance'], owner.config)).balance).toBeCloseTo(100 - cost, 6)
    expect((await json<{ totalRequests: number }>(['usage'], owner.config)).totalRequests).toBe(1)

    // Back to the personal account: the team's key and spend are not there; the bonus is untouched.
    expect(await ok(['team', 'use', 'personal'], owner.config)).toContain('личном аккаунте')
    expect(readConfig(owner.config).team).toBeUndefined()
    expect((await json<{ balance: number }>(['balance'], owner.config)).balance).toBe(1)
    expect((await json<{ id: string }[]>(['keys', 'list'], owner.config)).map((k) => k.id)).not.toContain(key.id)
    expect((await json<{ totalRequests: number }>(['usage'], owner.config)).totalRequests).toBe(0)
    // Logging out forgets the chosen team with the session.
    await ok(['team', 'use', team.id], owner.config)
    await ok(['logout'], owner.config)
    expect(readConfig(owner.config).team).toBeUndefined()
  })
})

describe('voice', () => {
  test('transcribe prints the text, or subtitles with --format srt; speak saves the audio', async () => {
    const { config } = await signedIn()
    const wav = join(config, 'memo.wav')
    writeFileSync(wav, toneWav(2.5))
    expect(await ok(['transcribe', wav], config)).toMatch(/^Демо-расшифровка: запись длительностью 2,5 с\..*\n$/)
    const ogg = join(config, 'voice.ogg')
    writeFileSync(ogg, oggOpus(4))
    expect(await ok(['transcribe', ogg, '--format', 'srt'], config)).toStartWith('1\n00:00:00,000 --> 00:00:04,000\nДемо-расшифровка')
    const verbose = JSON.parse(await ok(['transcribe', ogg, '-f', 'verbose_json', '-l', 'en'], config))
    expect(verbose).toMatchObject({ task: 'transcribe', language: 'en', duration: 4 })

    const before = (await json<{ balance: number }>(['balance'], config)).balance
    const out = join(config, 'privet.wav')
    const saved = await ok(['speak', 'Привет, это проверка озвучки', '-o', out, '--voice', 'nova'], config)
    expect(saved).toMatch(/^Сохранено: .*privet\.wav \(\d+ КБ, audio\/wav\)\n$/)
    const bytes = readFileSync(out)
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('RIFF')
    const sent = gw.upstream.log.findLast((r) => r.path.endsWith('/audio/speech'))!
    expect(sent.body).toMatchObject({ voice: 'nova', response_format: 'wav', input: 'Привет, это проверка озвучки' })
    // Settled once the router reports the generation's cost, a moment after the last byte.
    await eventually(async () => (await json<{ balance: number }>(['balance'], config)).balance < before)

    // Text from stdin, the audio to stdout (not a terminal here).
    const piped = spawn(['speak', '-f', 'pcm'], config, 'Из конвейера')
    const [raw, code] = await Promise.all([new Response(piped.stdout).arrayBuffer(), piped.exited])
    expect(code).toBe(0)
    expect(raw.byteLength).toBeGreaterThan(1000)
  })

  test('a missing file, a bad format and an unaffordable text are one-line errors', async () => {
    const { config } = await signedIn()
    expectOneLineError(await cli(['transcribe', join(config, 'nope.wav')], config), 2, 'Файл не найден')
    expectOneLineError(await cli(['transcribe', 'x.wav', '--format', 'docx'], config), 2, 'text, json, verbose_json, srt, vtt')
    const junk = join(config, 'junk.mp3')
    writeFileSync(junk, 'не звук')
    expectOneLineError(await cli(['transcribe', junk], config), 1, 'длительность записи')
    expectOneLineError(await cli(['speak', 'я'.repeat(4000), '-o', join(config, 'big.mp3')], config), 4, 'Недостаточно средств', 'gw topup')
  })
})
