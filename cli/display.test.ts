// Issue 33 in the terminal: `gw models` prints voice prices in their own units (a minute of audio,
// 1M characters) as the web catalogue does, and no picture-priced model reads «бесплатно» (#18);
// `gw usage` and `gw transactions` show Moscow time and say so, whatever the machine's zone (#19).
// The CLI runs as a real process against the real server and the fake upstream (as cli.test.ts).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { priceLines, priceLineText } from '../src/content/models/catalog'
import { startGateway } from '../src/test-support/gateway'
import { registerUser } from '../src/test-support/server'
import { tokenCells, voicePrice } from './commands/models'
import type { Model } from './lib/api'
import { moscowDay, moscowTime, mskColumn, plainSpaces, when } from './lib/format'

const ENTRY = new URL('./index.ts', import.meta.url).pathname
// Far from Moscow (UTC−10): a time printed in the machine's zone would be 13 hours off.
const MACHINE_ZONE = 'Pacific/Honolulu'
let gw: Awaited<ReturnType<typeof startGateway>>
const dirs: string[] = []

beforeAll(async () => {
  gw = await startGateway()
})
afterAll(async () => {
  await gw.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

async function ok(args: string[], config: string): Promise<string> {
  const proc = Bun.spawn(['bun', ENTRY, ...args], {
    env: { PATH: process.env.PATH!, HOME: config, XDG_CONFIG_HOME: config, GW_SERVER: gw.url, NO_COLOR: '1', TZ: MACHINE_ZONE },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`gw ${args.join(' ')} → ${code}\n${stderr}`)
  return stdout
}
const json = async <T>(args: string[], config: string): Promise<T> => JSON.parse(await ok([...args, '--json'], config))

function freshConfig() {
  const dir = mkdtempSync(join(tmpdir(), 'gw-display-'))
  dirs.push(dir)
  return dir
}

/** 'DD.MM.YYYY, HH:MM' in Moscow, computed here independently of the CLI's helpers. */
const moscowClock = (iso: string) =>
  new Intl.DateTimeFormat('ru-RU', { timeZone: 'Europe/Moscow', day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(new Date(iso))

const model = (pricing: Partial<Model['pricing']>, capabilities: Partial<Model['capabilities']> = {}) =>
  ({
    id: 'x/y',
    name: 'X',
    pricing: { prompt: '0', completion: '0', image: '0', request: '0', image_output: '0', ...pricing },
    capabilities: { image: false, vision: false, embeddings: false, ...capabilities },
  }) as unknown as Model

describe('helpers', () => {
  test('times are Moscow times whatever the zone; a lone time says «МСК», a column says it in its header', () => {
    // 21:48 UTC on 28 November is 00:48 on the 29th in Moscow
    expect(when('2026-11-28T21:48:00Z')).toBe('29.11.2026, 00:48')
    expect(moscowTime('2026-11-28T21:48:00Z')).toBe('29.11.2026, 00:48 МСК')
    expect(moscowDay('2026-11-28T21:48:00Z')).toBe('29.11.2026')
    expect(mskColumn('Время')).toBe('Время (МСК)')
    expect(when(null)).toBe('—')
  })

  test('token cells: a model priced by the picture it draws, or an embedding model, never reads «бесплатно» where it costs', () => {
    expect(tokenCells(model({ image_output: '3.51', image: '3.51' }, { image: true }))).toEqual(['—', '—'])
    expect(tokenCells(model({ request: '0.5' }))).toEqual(['—', '—'])
    expect(tokenCells(model({ prompt: '0.00000234' }, { embeddings: true }))).toEqual(['2,34 ₽', '—'])
    // a model that is free is free
    expect(tokenCells(model({}))).toEqual(['бесплатно', 'бесплатно'])
  })

  test('voice prices in their own units, as the web catalogue words them', () => {
    expect(voicePrice(model({ prompt: '0.0117', audio_second: '0.0117' }, { transcription: true }))).toBe('Аудио: 0,7020 ₽ за минуту')
    expect(voicePrice(model({ prompt: '0.001755', character: '0.001755' }, { speech: true }))).toBe('Текст: 1 755,00 ₽ за 1M символов')
  })
})

describe('gw models', () => {
  test('voice models in a table of their own, each price with its unit; the token table has none of them', async () => {
    const dir = freshConfig()
    const all = await json<Model[]>(['models'], dir)
    const voice = all.filter((m) => m.capabilities.speech || m.capabilities.transcription)
    expect(voice.length).toBeGreaterThanOrEqual(2)
    const out = await ok(['models'], dir)
    const [tokens, voices] = out.split('Голосовые модели')
    expect(voices).toBeDefined()
    for (const m of voice) {
      expect(tokens).not.toContain(m.id)
      const line = voices!.split('\n').find((l) => l.startsWith(`${m.id} `))!
      expect(line).toBeDefined()
      // the web's words for the same model
      expect(line).toContain(plainSpaces(priceLines(m).map(priceLineText).join('; ')))
      expect(line).not.toContain('бесплатно')
    }
    const speech = voices!.split('\n').find((l) => l.startsWith('openai/gpt-4o-mini-tts '))!
    expect(speech).toContain('за 1M символов')
    const whisper = voices!.split('\n').find((l) => l.startsWith('openai/whisper-1 '))!
    expect(whisper).toContain('за минуту')
    expect(whisper).not.toContain('токенов')
  })

  test('a model priced by the picture it draws reads its picture price, not «бесплатно»', async () => {
    const dir = freshConfig()
    const all = await json<Model[]>(['models'], dir)
    const drawer = all.find((m) => Number(m.pricing.image_output ?? 0) > 0 && Number(m.pricing.prompt) === 0)!
    expect(drawer).toBeDefined()
    const row = (await ok(['models', drawer.id], dir)).split('\n').find((l) => l.startsWith(`${drawer.id} `))!
    expect(row).not.toContain('бесплатно')
    expect(row).toMatch(/\d,\d+ ₽/)
  })
})

describe('Moscow time in gw usage and gw transactions', () => {
  test(`on a machine in ${MACHINE_ZONE}: the times are Moscow's and the columns say «МСК»`, async () => {
    const user = await registerUser(gw.url)
    const config = freshConfig()
    await ok(['login', '--email', user.email, '--password', user.password], config)
    await ok(['chat', '-m', 'anthropic/claude-3-haiku', 'Который час в Москве?'], config)

    const movements = await json<Array<{ createdAt: string; type: string }>>(['transactions'], config)
    const transactions = (await ok(['transactions'], config)).split('\n')
    expect(transactions[0]).toMatch(/^Дата \(МСК\)\s+Тип/)
    for (const [i, t] of movements.entries()) expect(transactions[i + 2]).toStartWith(moscowClock(t.createdAt))

    const usage = await json<{ logs: Array<{ createdAt: string; model: string }> }>(['usage'], config)
    expect(usage.logs).toHaveLength(1)
    const lines = (await ok(['usage'], config)).split('\n')
    const header = lines.findIndex((l) => l.startsWith('Время'))
    expect(lines[header]).toMatch(/^Время \(МСК\)\s+Модель/)
    expect(lines[header + 2]).toStartWith(`${moscowClock(usage.logs[0]!.createdAt)}  anthropic/claude-3-haiku`)
  })
})
