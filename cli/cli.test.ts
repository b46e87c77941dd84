// The CLI as a real process (`bun cli/index.ts …`) against the real server and the fake upstream.
// Each test signs in with its own config dir (XDG_CONFIG_HOME), as a separate user would.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
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
import { ChatView } from './views/chat'

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

    expect(await ok(['keys', 'rename', viaJson.id, 'прод'], config)).toContain('«прод»')
    expect(await ok(['keys', 'disable', viaJson.id], config)).toContain('отключён')
    expect((await json<{ id: string; isActive: boolean }[]>(['keys'], config)).find((k) => k.id === viaJson.id)).toMatchObject({ isActive: false })
    expect(await ok(['keys', 'enable', viaJson.id], config)).toContain('включён')

    expect(await ok(['keys', 'delete', viaJson.id], config)).toContain('удалён')
    expect((await json<{ id: string }[]>(['keys', 'list'], config)).map((k) => k.id)).not.toContain(viaJson.id)
    const again = await cli(['keys', 'delete', viaJson.id], config)
    expect(again.code).toBe(1)
    expect(again.stderr).toStartWith('Ошибка: ')
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
    const per1k = Number(mini.pricing.prompt) * 1000 // 0.01…1 ₽ → four decimals
    expect(per1k).toBeGreaterThan(0.01)
    expect(per1k).toBeLessThan(1)
    expect(table).toContain(`${per1k.toFixed(4).replace('.', ',')} ₽`)
    expect(table).toContain('openai/gpt-4 ')
    expect(await ok(['models', 'нет-такой-модели'], dir)).toContain('Ничего не найдено')
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
    expect(r.stderr).toContain(`баланс: ${String(after).replace('.', ',')} ₽`)

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
    expect(Number(left!.replace(',', '.'))).toBe(balance)
    expect(Math.round((1 - balance) * 1e6)).toBe(Math.round(Number(cost!.replace(',', '.')) * 1e6))
    ui.unmount()
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
