// UPSTREAMS_FILE as the server reads it at start: a good file joins the env's routers in order; a bad
// one (a missing field, an unreadable file) stops the start with a message naming the entry and the field.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../config'
import { refusesToStart } from '../test-support/process'

const dir = mkdtempSync(join(tmpdir(), 'gw-upstreams-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const file = (name: string, body: unknown) => {
  const path = join(dir, name)
  writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body))
  return path
}
const giga = {
  id: 'giga',
  kind: 'gigachat',
  baseUrl: 'https://giga.example/api/v1',
  authUrl: 'https://giga.example/oauth',
  authKey: 'k',
  scope: 'GIGACHAT_API_CORP',
  residency: 'ru',
  currency: 'RUB',
  models: [{ id: 'sber/gigachat-2-max', upstreamModel: 'GigaChat-2-Max', name: 'GigaChat 2 Max', context: 131072, prompt: '650', completion: '650' }],
}
const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: dir, JWT_SECRET: 'x'.repeat(40), ...env })

describe('UPSTREAMS_FILE', () => {
  test('unset: the demo router alone; with FALLBACK_UPSTREAM_*: the two routers', () => {
    expect(config({}).upstreams.map((u) => [u.id, u.kind])).toEqual([['primary', 'openrouter']])
    expect(config({ FALLBACK_UPSTREAM_URL: 'http://127.0.0.1:9/api/v1', FALLBACK_UPSTREAM_API_KEY: 'k' }).upstreams.map((u) => u.id)).toEqual(['primary', 'fallback'])
  })

  test('set: the env routers first, then the file in its order', () => {
    const path = file('good.json', { upstreams: [giga] })
    const list = config({ OPENROUTER_API_KEY: 'sk', UPSTREAMS_FILE: path }).upstreams
    expect(list.map((u) => [u.id, u.kind, u.residency, u.currency])).toEqual([
      ['primary', 'openrouter', 'foreign', 'USD'],
      ['giga', 'gigachat', 'ru', 'RUB'],
    ])
  })

  test('a bad file is a ConfigError naming the entry and the field; an unreadable one names the path', () => {
    const { scope: _scope, ...noScope } = giga
    expect(() => config({ UPSTREAMS_FILE: file('bad.json', { upstreams: [noScope] }) })).toThrow(ConfigError)
    expect(() => config({ UPSTREAMS_FILE: file('bad.json', { upstreams: [noScope] }) })).toThrow('upstreams[0] (id "giga"): scope is required')
    expect(() => config({ UPSTREAMS_FILE: join(dir, 'missing.json') })).toThrow(/UPSTREAMS_FILE .*missing\.json cannot be read/)
    expect(() => config({ UPSTREAMS_FILE: file('broken.json', '{ "upstreams": [') })).toThrow(ConfigError)
  })

  test('the server does not start on a bad file, and says why', async () => {
    const { code, stderr, stdout } = await refusesToStart({ UPSTREAMS_FILE: file('stop.json', { upstreams: [{ ...giga, residency: 'moon' }] }) })
    expect(code).toBe(1)
    expect(stderr).toContain('upstreams[0] (id "giga"): residency')
    expect(stdout).not.toContain('listening')
  })
})
