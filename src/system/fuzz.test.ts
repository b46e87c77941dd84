// Issue 16, item 3: validation never throws. A bounded, deterministic fuzz over every operation of the
// OpenAPI document — bodies generated from each operation's schema and then broken (wrong types,
// out-of-range and NaN-ish numbers, long strings, odd Unicode, deep nesting, arrays for objects, missing
// and extra fields, raw garbage), path and query parameters plausible and hostile, with and without
// credentials — against the real server. Not one answer may be a 5xx, and the server's memory stays
// below 300 MB throughout.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startGateway } from '../test-support/gateway'
import { rssSampler, serverPid } from '../test-support/process'
import { registerUser, uniqueEmail } from '../test-support/server'

/** Fixed, so a failure replays; FUZZ_SEED explores other sequences by hand. */
const SEED = Number(process.env.FUZZ_SEED ?? 16_2026)
const TOTAL = Number(process.env.FUZZ_TOTAL ?? 2_400)
const CONCURRENCY = 6
const RSS_LIMIT_MB = 300

// ---------------------------------------------------------------- deterministic randomness

/** mulberry32: small, fast, and the same sequence on every run. */
function rng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p: number) => next() < p,
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
  }
}
type Rng = ReturnType<typeof rng>

// ---------------------------------------------------------------- hostile values

/**
 * Numbers JSON.stringify cannot write (1e400 parses to Infinity, 2^64 loses precision): stored in the
 * value as marker strings and put into the body text raw.
 */
const RAW_NUMBERS = ['1e400', '-1e400', '1E+999', '123456789012345678901234567890', '9007199254740993', '-0.0', '1.0', '0.000000000000000000000000001', '5e-324']
const raw = (n: string) => `\u0000RAW:${n}\u0000`
const withRawNumbers = (json: string) => json.replace(/"\\u0000RAW:([^"\\]+)\\u0000"/g, '$1')

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800', // lone surrogates: JSON.stringify writes them as \ud800 escapes
  '\udfff',
  'x\ud800y\udc00z',
  '\u202eRTL override\u202c',
  '\u200f\u200e',
  '\u200b\u200c\u200d\ufeff',
  'e\u0301'.repeat(40),
  '🔥👨‍👩‍👧‍👦🏳️‍🌈',
  'ｆｕｌｌｗｉｄｔｈ',
  'İıßẞ',
  '٣٤٥',
  '\n\r\t\b\f\v',
  '<script>alert(1)</script>',
  "'; DROP TABLE users; --",
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00%2e%2e%2f',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a Log4Shell probe, the literal ${…} text is the point
  '${jndi:ldap://x}',
  '{{7*7}}',
  '=cmd|"/c calc"!A1',
  'NaN',
  'Infinity',
  '-1',
  '1e308',
  'true',
  'null',
  '0x1F',
  '2026-13-45T25:61:61Z',
  'not-a-date',
  '9999-12-31T23:59:59.999Z',
  '-271821-04-20T00:00:00Z',
  'a@b',
  `sk-gw-${'x'.repeat(40)}`,
  'Bearer x',
]

function longString(r: Rng): string {
  return r.pick([
    () => 'a'.repeat(r.pick([256, 1_001, 4_097, 10_000])),
    () => 'Ж'.repeat(r.pick([5_000, 20_000])),
    () => '\ud83d\ude00'.repeat(3_000),
    () => 'x'.repeat(70_000), // over the 64 KB of /api JSON: 413
  ])()
}

function hostileValue(r: Rng, depth = 0): unknown {
  switch (r.int(0, 11)) {
    case 0:
      return r.pick([1e308, -1e308, -1e10, 1e10, 1e21, 1e-7, 1.5, -1, 0, -0, 2 ** 53 + 1, 2 ** 31, -(2 ** 63), 5e-324, 0.1 + 0.2, 4.999999999999999])
    case 1:
      return raw(r.pick(RAW_NUMBERS))
    case 2:
    case 3:
      return r.pick(ODD_STRINGS)
    case 4:
      return longString(r)
    case 5:
      return r.pick([true, false, null])
    case 6:
      return depth > 2 ? [] : [hostileValue(r, depth + 1), hostileValue(r, depth + 1)]
    case 7:
      return depth > 2 ? {} : { [r.pick(['a', '__proto__', 'constructor', 'toString', ''])]: hostileValue(r, depth + 1) }
    case 8:
      return nest(r.pick([10, 30, 63, 70, 200]), r.chance(0.5))
    case 9:
      return Array.from({ length: r.pick([100, 3_000]) }, (_, i) => (r.chance(0.5) ? i : 'x'))
    case 10:
      return Object.fromEntries(Array.from({ length: r.pick([50, 600]) }, (_, i) => [`k${i}`, i]))
    default:
      return r.pick([[], {}, '', 0])
  }
}

function nest(levels: number, arrays: boolean): unknown {
  let v: unknown = 1
  for (let i = 0; i < levels; i++) v = arrays ? [v] : { a: v }
  return v
}

// ---------------------------------------------------------------- values from the OpenAPI schemas

type Schema = Record<string, any>

type Known = {
  models: string[]
  imageModels: string[]
  embeddingModels: string[]
  userId: string
  decoyUserId: string
  decoyKeyId: string
  decoyChatId: string
  paymentId: string
  uploadName: string
  apiKeyId: string
}

const plausibleString = (name: string, schema: Schema, r: Rng, known: Known): string => {
  if (schema.format === 'date-time') return r.pick([new Date().toISOString(), '2025-01-01T00:00:00.000Z', '2026-06-30T12:00:00+03:00'])
  if (schema.format === 'email' || /email/i.test(name)) return uniqueEmail('fuzz')
  if (/^model$/i.test(name)) return r.pick([...known.models, ...known.imageModels, ...known.embeddingModels])
  if (/password/i.test(name)) return 'correct-horse-42'
  if (/^role$/.test(name)) return r.pick(['user', 'assistant', 'system', 'tool'])
  if (/url/i.test(name)) return r.pick(['https://example.com/a.png', '/app/billing', 'javascript:alert(1)', 'http://127.0.0.1:1/x'])
  if (/startTime/.test(name)) return r.pick(['10:00', '23:59', '24:00', '9:5'])
  if (/apiKeyId/.test(name)) return known.apiKeyId
  if (/size/.test(name)) return r.pick(['1024x1024', '512x512', '1x1', '99999x99999'])
  const s = r.pick(['Привет', 'hello', 'Тест ключа', 'x', 'Расскажи анекдот', '42'])
  const min = schema.minLength ?? 0
  return s.length >= min ? s.slice(0, schema.maxLength ?? s.length) : s.padEnd(min, 'я')
}

function plausible(schema: Schema | undefined, r: Rng, known: Known, name = '', depth = 0): unknown {
  if (!schema || depth > 8) return null
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum)) return r.pick(schema.enum)
  const union = schema.anyOf ?? schema.oneOf
  if (Array.isArray(union)) return plausible(r.pick(union), r, known, name, depth + 1)
  const type = Array.isArray(schema.type)
    ? r.pick(schema.type.filter((t: string) => t !== 'null').length ? schema.type.filter((t: string) => t !== 'null') : schema.type)
    : schema.type
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {}
      const required = new Set<string>(schema.required ?? [])
      for (const [key, sub] of Object.entries<Schema>(schema.properties ?? {})) if (required.has(key) || r.chance(0.5)) out[key] = plausible(sub, r, known, key, depth + 1)
      if (name === '' && 'messages' in (schema.properties ?? {}) && !('messages' in out)) out.messages = [{ role: 'user', content: 'Привет' }]
      return out
    }
    case 'array': {
      const n = Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, r.int(1, 3)))
      if (name === 'messages' || name === 'input') return Array.from({ length: n }, () => ({ role: 'user', content: r.pick(['Привет', 'Сколько будет 2+2?']) }))
      return Array.from({ length: n }, () => plausible(schema.items, r, known, name, depth + 1))
    }
    case 'string':
      return plausibleString(name, schema, r, known)
    case 'integer':
    case 'number': {
      const lo = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0)
      const hi = schema.maximum ?? Math.max(lo + 100, 100)
      const v = lo + r.next() * Math.min(hi - lo, 1000)
      return type === 'integer' || schema.multipleOf === 1 ? Math.round(v) : Math.round(v * 100) / 100
    }
    case 'boolean':
      return r.chance(0.5)
    case 'null':
      return null
    default:
      // t.Any / t.Unknown: the descriptions say what is meant; a number or a short string covers most.
      if (/amount/i.test(name)) return r.pick([500, -100, 100.5])
      if (/intervalHours/.test(name)) return r.pick([1, 6, 24])
      if (/isEnabled/.test(name)) return r.chance(0.5)
      return r.pick(['Привет', 1, { model: known.models[0] }])
  }
}

/** The value with one place broken: a field replaced, dropped or added, or the whole thing swapped. */
function mutate(value: unknown, r: Rng): unknown {
  if (r.chance(0.12)) return hostileValue(r)
  if (Array.isArray(value)) {
    if (value.length === 0 || r.chance(0.2)) return r.chance(0.5) ? [...value, hostileValue(r)] : { 0: value[0] }
    const i = r.int(0, value.length - 1)
    const copy = [...value]
    copy[i] = mutate(copy[i], r)
    return copy
  }
  if (value && typeof value === 'object') {
    const obj = { ...(value as Record<string, unknown>) }
    const keys = Object.keys(obj)
    const roll = r.next()
    if (keys.length === 0 || roll < 0.1) obj[r.pick(['extra', 'constructor', 'toString', 'ключ', '\u0000'])] = hostileValue(r)
    else if (roll < 0.25) delete obj[r.pick(keys)]
    else if (roll < 0.35) return [obj]
    else {
      const k = r.pick(keys)
      obj[k] = r.chance(0.6) ? hostileValue(r) : mutate(obj[k], r)
    }
    return obj
  }
  return hostileValue(r)
}

// ---------------------------------------------------------------- requests

type Op = { method: string; path: string; op: Schema }
type Case = { method: string; url: string; headers: Record<string, string>; body?: string | FormData; label: string; last?: boolean }

const HOSTILE_SEGMENTS = [
  '0',
  '-1',
  '1e308',
  'NaN',
  '%00',
  '%ZZ',
  '%E0%A4%A',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '%E2%80%AE',
  '%E2%80%8B',
  '..%2F..%2Fetc%2Fpasswd',
  '..',
  '%2e%2e',
  'a'.repeat(3000),
  '%20',
  '__proto__',
  'constructor',
  '%D0%96',
  "'%20OR%201=1--",
]
const HOSTILE_QUERY_VALUES = [
  '',
  '0',
  '-1',
  '-1e10',
  '1e308',
  '1e400',
  '1.5',
  'NaN',
  'Infinity',
  '-0',
  '9007199254740993',
  'true',
  '[]',
  '{}',
  'x'.repeat(5000),
  '%ZZ',
  '%ED%A0%80',
  '%00',
  '%E2%80%AE',
  '2026-13-45',
  'not-a-date',
  '..%2F',
]

function pathValue(name: string, path: string, r: Rng, known: Known): string {
  if (r.chance(0.45)) return r.pick(HOSTILE_SEGMENTS)
  if (path.startsWith('/api/auth/api-keys')) return known.decoyKeyId
  if (path.startsWith('/api/admin/users')) return r.chance(0.5) ? known.decoyUserId : crypto.randomUUID()
  if (path.startsWith('/api/chats')) return known.decoyChatId
  if (path.startsWith('/api/payments')) return known.paymentId
  if (path.startsWith('/api/uploads') || path.startsWith('/v1/files')) return known.uploadName
  if (name === 'slug') return r.pick(['hello-world', 'статья', 'a-b-c'])
  return crypto.randomUUID()
}

function queryString(op: Schema, r: Rng, known: Known): string {
  const parts: string[] = []
  for (const p of (op.parameters ?? []).filter((p: Schema) => p.in === 'query')) {
    if (!p.required && r.chance(0.3)) continue
    const value = r.chance(0.5) ? r.pick(HOSTILE_QUERY_VALUES) : encodeURIComponent(String(plausible(p.schema, r, known, p.name) ?? ''))
    parts.push(`${p.name}=${value}`)
    if (r.chance(0.1)) parts.push(`${p.name}=${value}`) // repeated: an array where one value is expected
  }
  if (r.chance(0.1)) parts.push(`${r.pick(['__proto__[x]', 'toString', 'constructor', 'extra', 'a[b][c]', '%ZZ'])}=${r.pick(HOSTILE_QUERY_VALUES)}`)
  return parts.length ? `?${parts.join('&')}` : ''
}

type Auth = { user: string; key: string; admin: string }

function credentials(path: string, r: Rng, auth: Auth): Record<string, string> {
  const roll = r.next()
  const proper = path.startsWith('/api/admin') || path.startsWith('/api/blog/admin') ? auth.admin : path.startsWith('/v1') ? (r.chance(0.7) ? auth.key : auth.user) : auth.user
  if (roll < 0.6) return { authorization: `Bearer ${proper}` }
  if (roll < 0.7) return {}
  if (roll < 0.75 && path.startsWith('/v1')) return { 'x-api-key': auth.key }
  return r.pick<Record<string, string>>([
    { authorization: `Bearer ${auth.user}` },
    { authorization: `Bearer ${auth.admin}` },
    { authorization: `Bearer ${auth.key}` },
    { authorization: 'Bearer sk-gw-0000000000000000000000000000000000000000' },
    { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.' },
    { authorization: `Bearer ${'x'.repeat(4000)}` },
    { authorization: 'Basic YWRtaW46YWRtaW4=' },
    { authorization: 'Bearer' },
    { 'x-api-key': '\u00ff\u00fe' },
  ])
}

function bodyFor(o: Op, r: Rng, known: Known): { body?: string | FormData; contentType?: string } {
  const content: Schema = o.op.requestBody?.content ?? {}
  const schema: Schema | undefined = content['application/json']?.schema
  const isUpload = o.path === '/api/upload'
  const roll = r.next()
  if (isUpload && roll < 0.6) {
    const form = new FormData()
    const name = r.pick(['a.txt', 'фото.png', '../../etc/passwd', '\u202egnp.exe', 'x'.repeat(300), 'nul\u0000.txt', 'e\u0301.csv', '.json', ''])
    const bytes = r.pick([
      new TextEncoder().encode('Привет, мир'),
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]),
      new Uint8Array(0),
      new TextEncoder().encode('%PDF-1.4\n'),
      new Uint8Array([0xff, 0xfe, 0, 0x41]),
    ])
    if (r.chance(0.85)) form.append(r.chance(0.9) ? 'file' : 'files', new Blob([bytes], { type: r.pick(['', 'text/plain', 'image/png', 'application/x-msdownload']) }), name)
    if (r.chance(0.3)) form.append(r.pick(['file', 'extra', '__proto__']), r.pick(ODD_STRINGS))
    return { body: form }
  }
  if (roll < 0.08)
    return {
      body: r.pick(['', '{', '{"a":', '[1,]', '{"a":1}}', 'null', '1', '"x"', '[]', 'true', '\u0000', '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"a":1e99999}', '\ufeff{}']),
      contentType: 'application/json',
    }
  if (roll < 0.12)
    return {
      body: r.pick(['a=1&b=2', 'email=x%40y&password=%ZZ', 'hello', '<xml/>']),
      contentType: r.pick(['application/x-www-form-urlencoded', 'text/plain', 'application/xml', 'application/json; charset=latin1']),
    }
  if (roll < 0.15) {
    const form = new FormData()
    form.append('model', r.pick(ODD_STRINGS))
    form.append('email', 'a@b.ru')
    return { body: form }
  }
  if (roll < 0.18) return { body: JSON.stringify(nest(r.pick([64, 65, 1000]), r.chance(0.5))), contentType: 'application/json' }
  const value = plausible(schema ?? {}, r, known)
  const broken = r.chance(0.2) ? value : mutate(r.chance(0.3) ? mutate(value, r) : value, r)
  return { body: withRawNumbers(JSON.stringify(broken) ?? 'null'), contentType: 'application/json' }
}

/**
 * Operations that can end the fuzzing user's sessions or account (with its access token and, by chance,
 * its password) run last, so they do not blunt everything after them.
 */
const LAST = new Set(['POST /api/auth/logout', 'POST /api/auth/logout-all', 'POST /api/auth/change-password', 'DELETE /api/auth/account'])

function casesFor(o: Op, n: number, r: Rng, known: Known, auth: Auth, base: string): Case[] {
  const cases: Case[] = []
  for (let i = 0; i < n; i++) {
    const path = o.path.replace(/\{([^}]+)\}/g, (_, name: string) => pathValue(name, o.path, r, known)).replace(/\*$/, () => r.pick([...known.models, ...HOSTILE_SEGMENTS]))
    const url = base + path + queryString(o.op, r, known)
    const headers: Record<string, string> = { ...credentials(o.path, r, auth), 'x-forwarded-for': `10.16.${r.int(0, 255)}.${r.int(1, 254)}` }
    let body: string | FormData | undefined
    if (o.method !== 'get' && o.method !== 'head') {
      const b = bodyFor(o, r, known)
      body = b.body
      if (b.contentType) headers['content-type'] = b.contentType
    }
    cases.push({ method: o.method.toUpperCase(), url, headers, body, label: `${o.method.toUpperCase()} ${o.path}`, last: LAST.has(`${o.method.toUpperCase()} ${o.path}`) })
  }
  return cases
}

/** One field at a time: the plausible body with that field (top-level, or of the first message) set to each probe. */
const PROBES: [string, unknown][] = [
  ['1e308', 1e308],
  ['-1e10', -1e10],
  ['1.5', 1.5],
  ['1e21', 1e21], // an integer whose String() is exponential: "1e+21"
  ['2^53', 2 ** 53],
  ['1e-7', 1e-7], // String() "1e-7"
  ['1e400', raw('1e400')],
  ['lone surrogate', '\ud800'],
  ['RTL+NUL', '\u202e\u0000\u200b'],
  ['10k string', 'ы'.repeat(10_000)],
  ['array', [1, 'a']],
  ['object', { a: 1 }],
  ['object with data toString', { toString: 1, valueOf: 'x' }],
  ['null', null],
  ['true', true],
]

function fieldProbes(o: Op, r: Rng, known: Known, auth: Auth, base: string): (Case & { field: string })[] {
  const schema: Schema | undefined = o.op.requestBody?.content?.['application/json']?.schema
  if (!schema?.properties) return []
  const last = LAST.has(`${o.method.toUpperCase()} ${o.path}`)
  const out: (Case & { field: string })[] = []
  const fields: string[][] = Object.keys(schema.properties).map((k) => [k])
  if (schema.properties.messages) fields.push(['messages', '0', 'role'], ['messages', '0', 'content'])
  for (const field of fields) {
    for (const [probe, value] of PROBES) {
      const body = plausible(schema, r, known) as Record<string, any>
      if (field.length === 1) body[field[0]!] = value
      else if (Array.isArray(body.messages) && body.messages[0] && typeof body.messages[0] === 'object') body.messages[0][field[2]!] = value
      else continue
      const path = o.path.replace(/\{([^}]+)\}/g, (_, name: string) => pathValue(name, o.path, rng(1), known))
      const proper = o.path.startsWith('/api/admin') || o.path.startsWith('/api/blog/admin') ? auth.admin : o.path.startsWith('/v1') ? auth.key : auth.user
      out.push({
        method: o.method.toUpperCase(),
        url: base + path,
        headers: { authorization: `Bearer ${proper}`, 'content-type': 'application/json', 'x-forwarded-for': `10.17.${r.int(0, 255)}.${r.int(1, 254)}` },
        body: withRawNumbers(JSON.stringify(body)),
        label: `${o.method.toUpperCase()} ${o.path}`,
        field: `${field.join('.')}=${probe}`,
        last,
      })
    }
  }
  return out
}

// ---------------------------------------------------------------- the run

let gw: Awaited<ReturnType<typeof startGateway>>
let pid: number
let known: Known
let auth: Auth
const ADMIN_EMAIL = uniqueEmail('fuzz-admin')

beforeAll(async () => {
  gw = await startGateway({ ADMIN_EMAILS: ADMIN_EMAIL }, { faults: false, tokenDelayMs: 0 })
  pid = serverPid(gw.server.dataDir)
  const customer = await gw.customer()
  const admin = await registerUser(gw.url, ADMIN_EMAIL)
  const decoy = await gw.customer()
  const decoyKey = await customer.api.post('/api/auth/api-keys', { name: 'decoy' }, customer.accessToken)
  const decoyChat = await customer.api.post('/api/chats', { title: 'decoy', model: 'openai/gpt-4o-mini' }, customer.accessToken)
  const payment = await customer.api.post('/api/payments/create', { amount: 500 }, customer.accessToken)
  const form = new FormData()
  form.append('file', new Blob(['Привет']), 'a.txt')
  const upload = await (await fetch(`${gw.url}/api/upload`, { method: 'POST', headers: { authorization: `Bearer ${customer.accessToken}` }, body: form })).json()
  const models = (await (await fetch(`${gw.url}/v1/models`)).json()).data as {
    id: string
    architecture?: { output_modalities?: string[] }
    capabilities?: { embeddings?: boolean }
  }[]
  known = {
    models: models
      .filter((m) => !m.capabilities?.embeddings)
      .map((m) => m.id)
      .slice(0, 6),
    imageModels: models
      .filter((m) => m.architecture?.output_modalities?.includes('image'))
      .map((m) => m.id)
      .slice(0, 2),
    embeddingModels: models
      .filter((m) => m.capabilities?.embeddings)
      .map((m) => m.id)
      .slice(0, 2),
    userId: customer.user.id,
    decoyUserId: decoy.user.id,
    decoyKeyId: decoyKey.body.data.id,
    decoyChatId: decoyChat.body.data.id,
    paymentId: payment.body.data?.id ?? payment.body.data?.paymentId ?? crypto.randomUUID(),
    uploadName: String(upload.data?.url ?? '').match(/\/api\/uploads\/([^?]+)/)?.[1] ?? 'nothing',
    apiKeyId: customer.keyId,
  }
  auth = { user: customer.accessToken, key: customer.key, admin: admin.accessToken }
  expect(known.models.length).toBeGreaterThan(0)
}, 60_000)
afterAll(() => gw?.stop())

test(`fuzz: ≥ ${TOTAL} generated requests over every OpenAPI operation — no 5xx, server RSS < ${RSS_LIMIT_MB} MB`, async () => {
  const doc = await (await fetch(`${gw.url}/api/openapi.json`)).json()
  const ops: Op[] = []
  for (const [path, methods] of Object.entries<Schema>(doc.paths)) for (const [method, op] of Object.entries<Schema>(methods)) ops.push({ method, path, op })
  expect(ops.length).toBeGreaterThan(50)

  const r = rng(SEED)
  const perOp = Math.ceil(TOTAL / ops.length)
  const all = ops.flatMap((o) => casesFor(o, perOp, r, known, auth, gw.url))
  // Shuffled (deterministically), so that no operation runs in a block of its own; session-ending ones last.
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(r.next() * (i + 1))
    ;[all[i], all[j]] = [all[j]!, all[i]!]
  }
  const probes = ops.flatMap((o) => fieldProbes(o, r, known, auth, gw.url))
  const queue: (Case & { field?: string })[] = [...probes, ...all].sort((a, b) => Number(!!a.last) - Number(!!b.last)) // stable: order kept within each part

  const offenders: string[] = []
  const unnamed: string[] = []
  const generic: string[] = []
  const statuses = new Map<number, number>()
  const covered = new Set<string>()
  const rss = rssSampler(pid)
  const started = performance.now()
  let next = 0
  const worker = async () => {
    while (next < queue.length) {
      const c = queue[next++]!
      let status: number
      let answer = ''
      try {
        const res = await fetch(c.url, { method: c.method, headers: c.headers, body: c.body, redirect: 'manual', signal: AbortSignal.timeout(20_000) })
        status = res.status
        answer = await res.text() // streamed answers too: read to the end
        if (status === 400 && c.field) {
          const name = c.field.split('=')[0]!.split('.').at(-1)!
          if (!answer.includes(name)) unnamed.push(`${c.label} ${c.field} → ${answer.slice(0, 160)}`)
          // A schema without a message of its own still gets the field named (lib/http.ts), never the bare generic one.
          if (/"(Некорректные данные запроса|Некорректный параметр запроса)"/.test(answer)) generic.push(`${c.label} ${c.field} → ${answer.slice(0, 160)}`)
        }
      } catch (e) {
        status = 599
        answer = `no answer: ${(e as Error).message}`
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
      covered.add(c.label)
      if (status >= 500) {
        const body = typeof c.body === 'string' ? c.body.slice(0, 300) : c.body ? `[form: ${[...c.body.keys()].join(', ')}]` : ''
        offenders.push(
          `${status} ${c.method} ${c.url.slice(gw.url.length, gw.url.length + 200)} ${JSON.stringify(c.headers).slice(0, 120)}\n    body: ${body}\n    answer: ${answer.slice(0, 300)}`,
        )
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  const peak = rss.stop()
  const seconds = (performance.now() - started) / 1000

  const summary = `${queue.length} requests over ${covered.size}/${ops.length} operations in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}; peak RSS ${peak.toFixed(0)} MB`
  console.log(`[fuzz] ${summary}; ${probes.length} of them one field at a time, ${unnamed.length} 400s not naming their field`)
  if (process.env.FUZZ_VERBOSE) console.log(unnamed.join('\n'))
  if (offenders.length) {
    const serverErrors = gw.server
      .logs()
      .split('\n')
      .filter((l) => l.includes('[error]'))
      .slice(0, 20)
    console.log(`[fuzz] ${offenders.length} answers ≥ 500:\n${offenders.slice(0, 40).join('\n')}\n[fuzz] server log:\n${serverErrors.join('\n')}`)
  }
  expect(queue.length).toBeGreaterThanOrEqual(TOTAL)
  expect(covered.size).toBe(ops.length)
  expect(offenders).toEqual([])
  expect(generic).toEqual([])
  expect(peak).toBeLessThan(RSS_LIMIT_MB)
}, 120_000)

test('a wrong field whose schema has no message of its own is named in the 400 (/api and /v1 alike)', async () => {
  const post = async (path: string, body: unknown, token: string) => {
    const res = await fetch(gw.url + path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: res.status, body: await res.json() }
  }
  const fresh = await registerUser(gw.url) // the fuzz ended the fuzzing user's sessions
  expect(await post('/api/payments/create', { amount: 500, returnUrl: 1 }, fresh.accessToken)).toEqual({
    status: 400,
    body: { success: false, error: 'Некорректное значение поля returnUrl' },
  })
  const v1 = await post('/v1/responses', { model: known.models[0], input: 'Привет', previous_response_id: { toString: 1 } }, auth.key)
  expect(v1).toEqual({
    status: 400,
    body: { error: { message: 'Некорректный параметр previous_response_id', type: 'invalid_request_error', code: 'invalid_request', param: 'previous_response_id' } },
  })
})
