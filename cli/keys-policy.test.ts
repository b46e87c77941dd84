// Issue 36 in the terminal: `gw keys create` with a policy (--rpm, --tpm, --models, --ips, --expires,
// --kind management), `gw keys update` changing and clearing it (none), and `gw keys list` showing
// the kind, the limits and «истёк». The CLI runs as a real process against the real server and the
// fake upstream (as cli.test.ts); the server's refusals themselves are tested in src/.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { gwProcesses, type Run } from '../src/test-support/cli-process'
import { eventually, startGateway } from '../src/test-support/gateway'
import type { KeyPolicy } from './lib/key-policy'

// Each test runs gw a dozen times or more, up to half a second each on a busy machine.
setDefaultTimeout(30_000)
let gw: Awaited<ReturnType<typeof startGateway>>
const gwp = gwProcesses(() => gw.url)
const { cli, ok, signedIn, freshConfig } = gwp
const json = <T = Key>(args: string[], config: string) => gwp.json<T>(args, config)

beforeAll(async () => {
  gw = await startGateway()
})
afterAll(async () => {
  await gw.stop()
  gwp.cleanup()
})

type Key = KeyPolicy & { id: string; name: string; key?: string; isActive: boolean }

function expectOneLineError(r: Run, code: number, ...parts: string[]) {
  expect(r.code).toBe(code)
  expect(r.stdout).toBe('')
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
  for (const p of parts) expect(r.stderr).toContain(p)
}

/** A port nothing listens on. */
function closedPort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = s.port
  s.stop(true)
  return port
}

const chat = (key: string, model: string) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
  })
const errorCode = async (res: Response) => ((await res.json()) as { error?: { code?: string } }).error?.code

describe('keys with a policy', () => {
  test('create sets limits, lists that add up and the end of a Moscow day; list shows them; update changes and none clears', async () => {
    const { config } = await signedIn()
    // The lists add up over repeated options; the day ends at 23:59:59 Moscow time.
    const args = 'keys create бот --rpm 60 --tpm 100000 --models openai/*,anthropic/claude-3-haiku --models google/* --ips 10.0.0.0/8 --ips 192.168.1.5 --expires 2027-01-31'
    const created = await json(args.split(' '), config)
    expect(created).toMatchObject({
      name: 'бот',
      kind: 'inference',
      rpmLimit: 60,
      tpmLimit: 100_000,
      allowedModels: ['openai/*', 'anthropic/claude-3-haiku', 'google/*'],
      allowedIps: ['10.0.0.0/8', '192.168.1.5'],
      expiresAt: '2027-01-31T20:59:59.000Z',
      expired: false,
      appOrigin: null,
    })
    // The policy holds: the tests run from 127.0.0.1, outside the allowed networks.
    expect(await errorCode(await chat(created.key!, 'openai/gpt-4o-mini'))).toBe('ip_not_allowed')

    const text = await ok(['keys', 'list'], config)
    for (const line of text.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(80)
    const notes = text.replace(/\n {2,}/g, ' ')
    expect(notes).toContain('60 запр/мин · 100 000 ток/мин · модели: openai/*, anthropic/claude-3-haiku, google/* · IP: 10.0.0.0/8, 192.168.1.5 · до 31.01.2027')
    expect(text).toMatch(/бот\s+sk-gw-\S+…\s+активен/)

    // The text answer of create names the policy too; a key without one says nothing of it.
    const shown = await ok(['keys', 'create', 'ноутбук', '--rpm', '5', '--expires', '2027-01-31T18:00:00+03:00'], config)
    expect(shown).toContain('Ограничения: 5 запр/мин · до 31.01.2027, 18:00 МСК.')
    expect(await ok(['keys', 'create', 'сервер'], config)).not.toContain('Ограничения')

    // update: by name; only what is given changes; none clears.
    const out = await ok(['keys', 'update', 'бот', '--rpm', '120', '--ips', 'none', '--expires', 'none'], config)
    expect(out).toContain('Ключ «бот» обновлён: 120 запр/мин · 100 000 ток/мин · модели: openai/*, anthropic/claude-3-haiku, google/*.')
    const listed = (await json<Key[]>(['keys', 'list'], config)).find((k) => k.id === created.id)!
    expect(listed).toMatchObject({ rpmLimit: 120, tpmLimit: 100_000, allowedIps: null, expiresAt: null, allowedModels: ['openai/*', 'anthropic/claude-3-haiku', 'google/*'] })
    // From here, the models decide.
    expect((await chat(created.key!, 'openai/gpt-4o-mini')).status).toBe(200)
    expect(await errorCode(await chat(created.key!, 'deepseek/deepseek-chat'))).toBe('model_not_allowed')

    // update: by the beginning of the ID, to no limits at all.
    const cleared = await json(['keys', 'update', created.id.slice(0, 13), '--rpm', 'none', '--tpm', 'none', '--models', 'none'], config)
    expect(cleared).toMatchObject({ id: created.id, rpmLimit: null, tpmLimit: null, allowedModels: null, allowedIps: null, expiresAt: null })
    expect(await ok(['keys', 'update', 'бот', '--models', 'openai/gpt-4o', '--models', 'openai/gpt-4o-mini'], config)).toContain(
      'обновлён: модели: openai/gpt-4o, openai/gpt-4o-mini.',
    )

    expectOneLineError(await cli(['keys', 'update', 'бот'], config), 2, 'Не указано, что изменить', '--rpm')
    expectOneLineError(await cli(['keys', 'update', 'планшет', '--rpm', '1'], config), 2, 'Ключ «планшет» не найден')
    // What the server refuses comes back in its words.
    expectOneLineError(await cli(['keys', 'update', 'бот', '--ips', '10.0.0.300'], config), 1, 'IP')
    expectOneLineError(await cli(['keys', 'create', 'плохой', '--ips', 'не-адрес'], config), 1, 'IP')
  })

  test('a management key: --kind management, listed as «управляющий», manages keys and is refused on /v1', async () => {
    const { config } = await signedIn()
    const text = await ok(['keys', 'create', 'ci-админ', '--kind', 'management'], config)
    expect(text).toContain('Управляющий ключ «ci-админ» создан')
    expect(text).toContain('запросы к /v1 с ним не проходят')
    const secret = text.match(/sk-gw-\S+/)![0]
    const [listed] = await json<Key[]>(['keys', 'list'], config)
    expect(listed).toMatchObject({ name: 'ci-админ', kind: 'management' })
    expect(await ok(['keys', 'list'], config)).toMatch(new RegExp(`${listed!.id.slice(0, 8)}\\S*\\s+управляющий`))

    const keys = await fetch(`${gw.url}/api/auth/api-keys`, { headers: { authorization: `Bearer ${secret}` } })
    expect(keys.status).toBe(200)
    expect(await errorCode(await chat(secret, 'openai/gpt-4o-mini'))).toBe('management_key_not_allowed')
  })

  test('a key past its time is marked «истёк» in the list', async () => {
    const { config } = await signedIn()
    const soon = new Date(Date.now() + 1500).toISOString()
    const key = await json(['keys', 'create', 'подрядчик', '--expires', soon], config)
    expect(key).toMatchObject({ expiresAt: soon, expired: false })
    await eventually(async () => (await json<Key[]>(['keys', 'list'], config))[0]?.expired === true, 10_000)
    const text = await ok(['keys', 'list'], config)
    expect(text).toMatch(/подрядчик\s+sk-gw-\S+…\s+истёк/)
    expect(text).toContain(`  истёк ${new Intl.DateTimeFormat('ru-RU', { timeZone: 'Europe/Moscow', day: '2-digit', month: '2-digit', year: 'numeric' }).format(new Date(soon))}`)
    expect(await errorCode(await chat(key.key!, 'openai/gpt-4o-mini'))).toBe('key_expired')
    // A new date brings it back.
    expect(await json(['keys', 'update', 'подрядчик', '--expires', '2099-12-31'], config)).toMatchObject({ expired: false, expiresAt: '2099-12-31T20:59:59.000Z' })
  })

  test('wrong numbers and dates are usage errors before any request', async () => {
    // Not signed in, and no server there: exit 2 (not 3 or 5) means nothing was sent.
    const dir = freshConfig()
    const dead = `http://127.0.0.1:${closedPort()}`
    const refused = async (args: string[], ...parts: string[]) => expectOneLineError(await cli(args, dir, dead), 2, ...parts)
    await refused(['keys', 'create', 'x', '--rpm', 'abc'], '--rpm «abc»', 'нужно целое число от 1 до 1 000 000')
    await refused(['keys', 'create', 'x', '--rpm', '0'], '--rpm «0»')
    await refused(['keys', 'create', 'x', '--rpm', '2000000'], '--rpm «2000000»')
    await refused(['keys', 'create', 'x', '--tpm', '1.5'], '--tpm «1.5»')
    await refused(['keys', 'create', 'x', '--rpm', 'none'], '--rpm «none»')
    await refused(['keys', 'create', 'x', '--expires', '31.01.2027'], '--expires «31.01.2027»', 'ГГГГ-ММ-ДД')
    await refused(['keys', 'create', 'x', '--expires', '2027-02-30'], 'ГГГГ-ММ-ДД')
    await refused(['keys', 'create', 'x', '--expires', '2020-01-01'], 'срок действия уже прошёл')
    await refused(['keys', 'create', 'x', '--kind', 'admin'], '--kind «admin»', 'inference, management')
    await refused(['keys', 'create', 'x', '--models', ','], 'пустой список')
    await refused(['keys', 'update', 'x', '--tpm', 'много'], 'или none')
    await refused(['keys', 'update', 'x', '--models', 'openai/*', '--models', 'none'], 'none нельзя сочетать')
    await refused(['keys', 'update', 'x', '--expires', 'завтра'], 'ГГГГ-ММ-ДД')
    await refused(['keys', 'update', 'x'], 'Не указано, что изменить')
  })
})
