// UPSTREAMS_FILE's parser and the list the gateway runs with, on files written to a temp dir.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { UpstreamEntry } from './kinds/types'
import { parseUpstreamsFile, UpstreamsFileError, upstreamList } from './registry'

let dir: string
let path: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'upstreams-'))
  path = join(dir, 'upstreams.json')
  // A PEM-shaped block is all the parser looks for; the TLS layer checks the certificate itself.
  writeFileSync(join(dir, 'russian-root.pem'), '-----BEGIN CERTIFICATE-----\nMIIBdummy\n-----END CERTIFICATE-----\n')
  mkdirSync(join(dir, 'certs'))
  writeFileSync(join(dir, 'certs', 'other.crt'), 'junk\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')
  writeFileSync(join(dir, 'not-pem.txt'), 'hello')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Doc = { upstreams: Record<string, unknown>[] } & Record<string, unknown>

/** A valid file with one entry of each kind; each test spoils a fresh copy. */
function validDoc(): Doc {
  return {
    upstreams: [
      { id: 'or2', kind: 'openrouter', baseUrl: 'https://router.example/api/v1/', apiKey: 'sk-or-2', residency: 'foreign', currency: 'USD' },
      {
        id: 'vllm',
        kind: 'openai',
        baseUrl: 'http://10.0.0.5:8000/v1',
        apiKey: 'local-key',
        residency: 'ru',
        currency: 'RUB',
        models: [{ id: 'qwen/qwen3-32b', upstreamModel: 'Qwen/Qwen3-32B', name: 'Qwen3 32B', context: 32768, prompt: 10, completion: '30.5' }],
      },
      {
        id: 'giga',
        kind: 'gigachat',
        baseUrl: 'https://gigachat.devices.sberbank.ru/api/v1/',
        authUrl: 'https://ngw.devices.sberbank.ru:9443/api/v2/oauth',
        authKey: 'base64-auth-key',
        scope: 'GIGACHAT_API_PERS',
        caFile: 'russian-root.pem',
        residency: 'ru',
        currency: 'RUB',
        models: [
          { id: 'sber/gigachat-2-max', upstreamModel: 'GigaChat-2-Max', name: 'GigaChat 2 Max', context: 131072, prompt: '1950', completion: 1950, cachedPrompt: 0.5 },
          { id: 'sber/gigachat-2-lite', upstreamModel: 'GigaChat-2', name: 'GigaChat 2 Lite', context: 131072, prompt: '65', completion: '65' },
        ],
      },
      {
        id: 'yandex',
        kind: 'yandex',
        baseUrl: 'https://llm.api.cloud.yandex.net',
        apiKey: 'AQVN-key',
        folderId: 'b1gfolder',
        caFile: 'certs/other.crt',
        residency: 'ru',
        currency: 'RUB',
        models: [{ id: 'yandex/yandexgpt-5-pro', upstreamModel: 'yandexgpt/latest', name: 'YandexGPT 5 Pro', context: 32000, prompt: '1.2', completion: '1.2' }],
      },
    ],
  }
}

const parse = (doc: unknown) => parseUpstreamsFile(JSON.stringify(doc), path)

/** The message of the UpstreamsFileError a spoilt copy of the valid file throws. */
function errorOf(spoil: (doc: Doc) => void): string {
  const doc = validDoc()
  spoil(doc)
  try {
    parse(doc)
  } catch (e) {
    expect(e).toBeInstanceOf(UpstreamsFileError)
    return (e as Error).message
  }
  throw new Error('expected the file to be rejected')
}

const entry = (doc: Doc, i: number) => doc.upstreams[i]
const model = (doc: Doc, i: number, j: number) => (doc.upstreams[i].models as Record<string, unknown>[])[j]

test('a valid file with all four kinds, normalised', () => {
  const list = parse(validDoc())
  expect(list.map((e) => [e.id, e.kind])).toEqual([
    ['or2', 'openrouter'],
    ['vllm', 'openai'],
    ['giga', 'gigachat'],
    ['yandex', 'yandex'],
  ])
  expect(list[0]).toEqual({ id: 'or2', kind: 'openrouter', baseUrl: 'https://router.example/api/v1', apiKey: 'sk-or-2', residency: 'foreign', currency: 'USD' })
  expect(list[1]).toEqual({
    id: 'vllm',
    kind: 'openai',
    baseUrl: 'http://10.0.0.5:8000/v1',
    apiKey: 'local-key',
    residency: 'ru',
    currency: 'RUB',
    models: [{ id: 'qwen/qwen3-32b', upstreamModel: 'Qwen/Qwen3-32B', name: 'Qwen3 32B', context: 32768, prompt: '10', completion: '30.5' }],
  })
  expect(list[2]).toEqual({
    id: 'giga',
    kind: 'gigachat',
    baseUrl: 'https://gigachat.devices.sberbank.ru/api/v1',
    authUrl: 'https://ngw.devices.sberbank.ru:9443/api/v2/oauth',
    authKey: 'base64-auth-key',
    scope: 'GIGACHAT_API_PERS',
    caFile: join(dir, 'russian-root.pem'),
    residency: 'ru',
    currency: 'RUB',
    models: [
      { id: 'sber/gigachat-2-max', upstreamModel: 'GigaChat-2-Max', name: 'GigaChat 2 Max', context: 131072, prompt: '1950', completion: '1950', cachedPrompt: '0.5' },
      { id: 'sber/gigachat-2-lite', upstreamModel: 'GigaChat-2', name: 'GigaChat 2 Lite', context: 131072, prompt: '65', completion: '65' },
    ],
  })
  expect(list[3]).toMatchObject({ kind: 'yandex', folderId: 'b1gfolder', caFile: join(dir, 'certs', 'other.crt') })
  // No cachedPrompt key at all when the file has none (not `undefined`).
  expect('cachedPrompt' in (list[1] as { models: object[] }).models[0]).toBe(false)
})

test('an absolute caFile is kept; a relative one resolves against the file, not the working directory', () => {
  const abs = join(dir, 'russian-root.pem')
  const list = parseUpstreamsFile(
    JSON.stringify({
      upstreams: [{ ...validDoc().upstreams[2], caFile: abs }],
    }),
    '/nonexistent/elsewhere/u.json',
  )
  expect(list[0].caFile).toBe(abs)
  expect(() => parseUpstreamsFile(JSON.stringify({ upstreams: [validDoc().upstreams[2]] }), '/nonexistent/elsewhere/u.json')).toThrow(
    'caFile /nonexistent/elsewhere/russian-root.pem cannot be read',
  )
})

describe('prices', () => {
  const priced = (prompt: unknown) => errorOrValue((d) => void (model(d, 1, 0).prompt = prompt))
  function errorOrValue(spoil: (doc: Doc) => void): string {
    const doc = validDoc()
    spoil(doc)
    try {
      return (parse(doc)[1] as { models: { prompt: string }[] }).models[0].prompt
    } catch (e) {
      return `error: ${(e as Error).message}`
    }
  }

  test.each([
    [10, '10'],
    [0, '0'],
    [0.25, '0.25'],
    [1950.5, '1950.5'],
    [0.000001, '0.000001'],
    ['0', '0'],
    ['0.0000001', '0.0000001'],
    ['007.50', '007.50'], // a string is kept as written
    [' 1.5 ', '1.5'],
  ])('%p → %p', (given, stored) => expect(priced(given)).toBe(stored))

  test.each([
    [1e-7, 'exponent'], // JS writes it 1e-7
    [1e21, 'exponent'], // and this 1e+21
    ['1e3', 'exponent'],
    ['1E3', 'exponent'],
    [-1, 'non-negative'],
    ['-1', 'non-negative'],
    ['NaN', 'non-negative'],
    ['Infinity', 'non-negative'],
    ['1,5', 'non-negative'],
    ['.5', 'non-negative'],
    ['5.', 'non-negative'],
    ['', 'non-negative'],
    [true, 'non-negative'],
    [{}, 'non-negative'],
  ])('%p is rejected', (given, why) => {
    const message = priced(given)
    expect(message).toStartWith(`error: UPSTREAMS_FILE ${path}: upstreams[1] (id "vllm"): models[0] (id "qwen/qwen3-32b"): prompt must be`)
    expect(message).toContain(why)
  })

  test('a JSON number with an exponent but a plain JS form is accepted (the rule is on the JS string form)', () => {
    const text = JSON.stringify(validDoc()).replace('"prompt":10,', '"prompt":1E1,')
    expect(text).toContain('1E1')
    expect((parseUpstreamsFile(text, path)[1] as { models: { prompt: string }[] }).models[0].prompt).toBe('10')
  })
})

describe('whole-file errors', () => {
  test.each([
    ['{"upstreams": [', 'invalid JSON: '],
    ['', 'invalid JSON: '],
    ['[]', 'the top level must be an object with an "upstreams" array'],
    ['null', 'the top level must be an object with an "upstreams" array'],
    ['{}', 'the top level must be an object with an "upstreams" array'],
    ['{"upstreams": {}}', 'the top level must be an object with an "upstreams" array'],
    ['{"upstreams": []}', '"upstreams" is empty'],
    ['{"upstreams": [], "upstream": []}', 'unknown top-level field upstream'],
    ['{"upstreams": [5]}', 'upstreams[0]: must be an object'],
  ])('%p', (text, message) => {
    expect(() => parseUpstreamsFile(text, '/etc/u.json')).toThrow(UpstreamsFileError)
    expect(() => parseUpstreamsFile(text, '/etc/u.json')).toThrow(`UPSTREAMS_FILE /etc/u.json: ${message}`)
  })
})

// Each: what is spoilt, how, and the message after `UPSTREAMS_FILE <path>: ` (entry and field named).
const cases: [string, (d: Doc) => void, string][] = [
  // id
  ['id missing', (d) => delete entry(d, 1).id, 'upstreams[1]: id is required'],
  ['id not a string', (d) => void (entry(d, 1).id = 7), 'upstreams[1]: id must be a non-empty string'],
  ['id empty', (d) => void (entry(d, 1).id = ''), 'upstreams[1] (id ""): id must be a non-empty string'],
  ['id uppercase', (d) => void (entry(d, 1).id = 'VLLM'), 'upstreams[1] (id "VLLM"): id must be 1–32 characters'],
  ['id starts with -', (d) => void (entry(d, 1).id = '-vllm'), 'upstreams[1] (id "-vllm"): id must be'],
  ['id too long', (d) => void (entry(d, 1).id = 'a'.repeat(33)), `upstreams[1] (id "${'a'.repeat(33)}"): id must be`],
  ['id primary', (d) => void (entry(d, 1).id = 'primary'), 'upstreams[1] (id "primary"): id "primary" is reserved'],
  ['id fallback', (d) => void (entry(d, 0).id = 'fallback'), 'upstreams[0] (id "fallback"): id "fallback" is reserved'],
  ['id duplicated', (d) => void (entry(d, 3).id = 'giga'), 'upstreams[3] (id "giga"): id "giga" is already used by upstreams[2]'],
  // kind
  ['kind missing', (d) => delete entry(d, 1).kind, 'upstreams[1] (id "vllm"): kind is required'],
  ['kind unknown', (d) => void (entry(d, 1).kind = 'anthropic'), 'upstreams[1] (id "vllm"): kind must be one of "openrouter", "openai", "gigachat", "yandex", got "anthropic"'],
  // baseUrl / authUrl
  ['baseUrl missing', (d) => delete entry(d, 1).baseUrl, 'upstreams[1] (id "vllm"): baseUrl is required'],
  ['baseUrl not a URL', (d) => void (entry(d, 1).baseUrl = 'localhost:8000'), 'upstreams[1] (id "vllm"): baseUrl must be an http(s) URL'],
  ['baseUrl relative', (d) => void (entry(d, 1).baseUrl = '/v1'), 'upstreams[1] (id "vllm"): baseUrl must be an absolute http(s) URL'],
  ['baseUrl ftp', (d) => void (entry(d, 1).baseUrl = 'ftp://x.example/'), 'upstreams[1] (id "vllm"): baseUrl must be an http(s) URL'],
  ['authUrl missing', (d) => delete entry(d, 2).authUrl, 'upstreams[2] (id "giga"): authUrl is required for kind gigachat'],
  ['authUrl bad', (d) => void (entry(d, 2).authUrl = 'ngw.devices'), 'upstreams[2] (id "giga"): authUrl must be an absolute http(s) URL'],
  // credentials
  ['openrouter apiKey missing', (d) => delete entry(d, 0).apiKey, 'upstreams[0] (id "or2"): apiKey is required for kind openrouter'],
  ['openai apiKey blank', (d) => void (entry(d, 1).apiKey = '  '), 'upstreams[1] (id "vllm"): apiKey must be a non-empty string'],
  ['yandex apiKey missing', (d) => delete entry(d, 3).apiKey, 'upstreams[3] (id "yandex"): apiKey is required for kind yandex'],
  ['authKey missing', (d) => delete entry(d, 2).authKey, 'upstreams[2] (id "giga"): authKey is required for kind gigachat'],
  ['authKey a number', (d) => void (entry(d, 2).authKey = 123), 'upstreams[2] (id "giga"): authKey must be a non-empty string'],
  ['scope missing', (d) => delete entry(d, 2).scope, 'upstreams[2] (id "giga"): scope is required'],
  [
    'scope unknown',
    (d) => void (entry(d, 2).scope = 'GIGACHAT_API'),
    'upstreams[2] (id "giga"): scope must be one of "GIGACHAT_API_PERS", "GIGACHAT_API_B2B", "GIGACHAT_API_CORP"',
  ],
  ['folderId missing', (d) => delete entry(d, 3).folderId, 'upstreams[3] (id "yandex"): folderId is required for kind yandex'],
  ['folderId empty', (d) => void (entry(d, 3).folderId = ''), 'upstreams[3] (id "yandex"): folderId must be a non-empty string'],
  // residency / currency
  ['residency missing', (d) => delete entry(d, 1).residency, 'upstreams[1] (id "vllm"): residency is required (one of "ru", "foreign")'],
  ['residency bad', (d) => void (entry(d, 1).residency = 'RU'), 'upstreams[1] (id "vllm"): residency must be one of "ru", "foreign", got "RU"'],
  ['currency missing', (d) => delete entry(d, 0).currency, 'upstreams[0] (id "or2"): currency is required (one of "USD", "RUB")'],
  ['currency bad', (d) => void (entry(d, 0).currency = 'EUR'), 'upstreams[0] (id "or2"): currency must be one of "USD", "RUB", got "EUR"'],
  // caFile
  ['caFile missing on disk', (d) => void (entry(d, 2).caFile = 'nope.pem'), 'upstreams[2] (id "giga"): caFile /'],
  ['caFile not PEM', (d) => void (entry(d, 2).caFile = 'not-pem.txt'), 'is not a PEM certificate'],
  ['caFile a directory', (d) => void (entry(d, 2).caFile = 'certs'), 'cannot be read'],
  ['caFile empty', (d) => void (entry(d, 2).caFile = ''), 'upstreams[2] (id "giga"): caFile must be a non-empty string'],
  // models
  ['openai models missing', (d) => delete entry(d, 1).models, 'upstreams[1] (id "vllm"): models is required for kind openai'],
  ['gigachat models empty', (d) => void (entry(d, 2).models = []), 'upstreams[2] (id "giga"): models must not be empty for kind gigachat'],
  ['yandex models not an array', (d) => void (entry(d, 3).models = {}), 'upstreams[3] (id "yandex"): models must be an array'],
  ['openrouter models', (d) => void (entry(d, 0).models = []), 'upstreams[0] (id "or2"): models is not allowed for kind openrouter'],
  ['model not an object', (d) => void ((entry(d, 1).models as unknown[])[0] = 'qwen'), 'upstreams[1] (id "vllm"): models[0]: must be an object'],
  ['model id missing', (d) => delete model(d, 1, 0).id, 'upstreams[1] (id "vllm"): models[0]: id is required'],
  ['model id without vendor', (d) => void (model(d, 1, 0).id = 'qwen3-32b'), 'models[0] (id "qwen3-32b"): id must look like vendor/name'],
  ['model id uppercase', (d) => void (model(d, 1, 0).id = 'Qwen/qwen3'), 'models[0] (id "Qwen/qwen3"): id must look like vendor/name'],
  ['model id two slashes', (d) => void (model(d, 1, 0).id = 'a/b/c'), 'models[0] (id "a/b/c"): id must look like vendor/name'],
  ['model id colon in vendor', (d) => void (model(d, 1, 0).id = 'a:b/c'), 'models[0] (id "a:b/c"): id must look like vendor/name'],
  [
    'model id duplicated',
    (d) => void (model(d, 2, 1).id = 'sber/gigachat-2-max'),
    'upstreams[2] (id "giga"): models[1] (id "sber/gigachat-2-max"): id is already used by models[0]',
  ],
  ['upstreamModel missing', (d) => delete model(d, 1, 0).upstreamModel, 'models[0] (id "qwen/qwen3-32b"): upstreamModel is required'],
  ['upstreamModel empty', (d) => void (model(d, 1, 0).upstreamModel = ''), 'models[0] (id "qwen/qwen3-32b"): upstreamModel must be a non-empty string'],
  ['name missing', (d) => delete model(d, 3, 0).name, 'upstreams[3] (id "yandex"): models[0] (id "yandex/yandexgpt-5-pro"): name is required'],
  ['context missing', (d) => delete model(d, 1, 0).context, 'models[0] (id "qwen/qwen3-32b"): context is required'],
  ['context zero', (d) => void (model(d, 1, 0).context = 0), 'models[0] (id "qwen/qwen3-32b"): context must be a positive integer'],
  ['context fraction', (d) => void (model(d, 1, 0).context = 1.5), 'context must be a positive integer'],
  ['context a string', (d) => void (model(d, 1, 0).context = '32768'), 'context must be a positive integer'],
  ['prompt missing', (d) => delete model(d, 1, 0).prompt, 'models[0] (id "qwen/qwen3-32b"): prompt is required'],
  ['completion missing', (d) => delete model(d, 1, 0).completion, 'models[0] (id "qwen/qwen3-32b"): completion is required'],
  ['completion negative', (d) => void (model(d, 1, 0).completion = -0.5), 'completion must be a non-negative decimal'],
  [
    'cachedPrompt exponent',
    (d) => void (model(d, 2, 0).cachedPrompt = '5e-1'),
    'upstreams[2] (id "giga"): models[0] (id "sber/gigachat-2-max"): cachedPrompt must be a plain decimal without an exponent',
  ],
  ['model type unknown', (d) => void (model(d, 2, 0).type = 'vision'), 'models[0] (id "sber/gigachat-2-max"): type must be one of "chat", "embeddings", got "vision"'],
  // unknown fields
  ['typo in an entry', (d) => void (entry(d, 1).apikey = 'x'), 'upstreams[1] (id "vllm"): unknown field apikey (did you mean apiKey?)'],
  ['unknown entry field', (d) => void (entry(d, 0).timeoutMs = 5), 'upstreams[0] (id "or2"): unknown field timeoutMs'],
  ['another kind’s field', (d) => void (entry(d, 1).folderId = 'b1g'), 'upstreams[1] (id "vllm"): folderId is not a field of kind openai (only of yandex)'],
  ['apiKey on gigachat', (d) => void (entry(d, 2).apiKey = 'k'), 'upstreams[2] (id "giga"): apiKey is not a field of kind gigachat'],
  ['unknown model field', (d) => void (model(d, 2, 1).cached_prompt = '1'), 'upstreams[2] (id "giga"): models[1] (id "sber/gigachat-2-lite"): unknown field cached_prompt'],
  ['model field in the wrong case', (d) => void (model(d, 1, 0).Context = 1), 'models[0] (id "qwen/qwen3-32b"): unknown field Context (did you mean context?)'],
]

describe('entry errors name the file, the entry and the field', () => {
  test.each(cases)('%s', (_, spoil, message) => {
    const got = errorOf(spoil)
    expect(got).toStartWith(`UPSTREAMS_FILE ${path}: `)
    expect(got).toContain(message)
  })
})

test('the message has the documented shape', () => {
  expect(errorOf((d) => delete entry(d, 2).authUrl)).toBe(`UPSTREAMS_FILE ${path}: upstreams[2] (id "giga"): authUrl is required for kind gigachat`)
})

test('null counts as absent for the optional caFile and cachedPrompt', () => {
  const doc = validDoc()
  entry(doc, 2).caFile = null
  model(doc, 2, 0).cachedPrompt = null
  const giga = parse(doc)[2] as Extract<UpstreamEntry, { kind: 'gigachat' }>
  expect('caFile' in giga).toBe(false)
  expect('cachedPrompt' in giga.models[0]).toBe(false)
})

test('the same public model id may come from two upstreams (failover between them)', () => {
  const doc = validDoc()
  model(doc, 3, 0).id = 'sber/gigachat-2-max'
  expect(parse(doc).length).toBe(4)
})

describe('upstreamList', () => {
  const router = { baseUrl: 'https://openrouter.ai/api/v1', apiKey: 'sk-or-main' }
  const fallback = { baseUrl: 'https://backup.example/api/v1', apiKey: 'sk-fb' }
  const ids = (list: UpstreamEntry[]) => list.map((e) => e.id)
  const file = () => parse(validDoc())
  const noRouterInFile = () => file().filter((e) => e.kind !== 'openrouter')

  test('env routers first (primary, fallback), then the file in its order', () => {
    const list = upstreamList({ openrouter: router, fallback, file: file() })
    expect(ids(list)).toEqual(['primary', 'fallback', 'or2', 'vllm', 'giga', 'yandex'])
    expect(list[0]).toEqual({ id: 'primary', kind: 'openrouter', baseUrl: router.baseUrl, apiKey: 'sk-or-main', residency: 'foreign', currency: 'USD' })
    expect(list[1]).toEqual({ id: 'fallback', kind: 'openrouter', baseUrl: fallback.baseUrl, apiKey: 'sk-fb', residency: 'foreign', currency: 'USD' })
  })

  test('no fallback env: no fallback entry', () => {
    expect(ids(upstreamList({ openrouter: router, fallback: null, file: file() }))).toEqual(['primary', 'or2', 'vllm', 'giga', 'yandex'])
  })

  test('no file: only the env routers', () => {
    expect(ids(upstreamList({ openrouter: router, fallback: null, file: [] }))).toEqual(['primary'])
    expect(ids(upstreamList({ openrouter: router, fallback, file: [] }))).toEqual(['primary', 'fallback'])
  })

  test('demo primary (no key) is left out when the file lists a router of its own', () => {
    const list = upstreamList({ openrouter: { ...router, apiKey: null }, fallback: null, file: file() })
    expect(ids(list)).toEqual(['or2', 'vllm', 'giga', 'yandex'])
    expect(ids(upstreamList({ openrouter: { ...router, apiKey: null }, fallback, file: file() }))).toEqual(['fallback', 'or2', 'vllm', 'giga', 'yandex'])
  })

  test('demo primary stays, with apiKey "", when the file has no router', () => {
    const list = upstreamList({ openrouter: { ...router, apiKey: null }, fallback: null, file: noRouterInFile() })
    expect(ids(list)).toEqual(['primary', 'vllm', 'giga', 'yandex'])
    expect(list[0]).toMatchObject({ id: 'primary', kind: 'openrouter', apiKey: '' })
    expect(ids(upstreamList({ openrouter: { ...router, apiKey: null }, fallback: null, file: [] }))).toEqual(['primary'])
  })

  test('a keyed primary stays even when the file lists routers', () => {
    expect(ids(upstreamList({ openrouter: router, fallback: null, file: file() }))[0]).toBe('primary')
  })
})
