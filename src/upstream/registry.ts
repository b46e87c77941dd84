// Reads and checks UPSTREAMS_FILE (the upstreams beyond the env-configured routers) and puts together
// the list the gateway runs with. Pure: config.ts reads the env and the file's text, this only checks.
// Every mistake stops the start with a message naming the file, the entry and the field, because a
// wrong upstream found at request time would bill or route users wrongly.

import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { isObject } from '../lib/json'
import { CURRENCIES, type Currency, type FileModel, MODEL_TYPES, RESIDENCIES, type Residency, UPSTREAM_KINDS, type UpstreamEntry, type UpstreamKind } from './kinds/types'

export class UpstreamsFileError extends Error {}

const ID_RE = /^[a-z0-9][a-z0-9_-]{0,31}$/
/** `vendor/name`, as the router's own ids look (`:` only after the slash, as in `…:free`). */
const MODEL_ID_RE = /^[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._:-]*$/
const DECIMAL_RE = /^\d+(\.\d+)?$/
/** The env-configured routers' ids (config's OPENROUTER_* and FALLBACK_UPSTREAM_*). */
const RESERVED_IDS = ['primary', 'fallback']
export const GIGACHAT_SCOPES = ['GIGACHAT_API_PERS', 'GIGACHAT_API_B2B', 'GIGACHAT_API_CORP'] as const
const PEM_MARK = '-----BEGIN CERTIFICATE-----'

const COMMON_FIELDS = ['id', 'kind', 'baseUrl', 'caFile', 'residency', 'currency']
const KIND_FIELDS: Record<UpstreamKind, string[]> = {
  openrouter: ['apiKey'],
  openai: ['apiKey', 'models'],
  gigachat: ['authUrl', 'authKey', 'scope', 'models'],
  yandex: ['apiKey', 'folderId', 'models'],
}
const MODEL_FIELDS = ['id', 'upstreamModel', 'name', 'context', 'prompt', 'completion', 'cachedPrompt', 'type']

type Obj = Record<string, unknown>
const oneOf = <T extends string>(list: readonly T[], v: unknown): v is T => typeof v === 'string' && (list as readonly string[]).includes(v)
const quoted = (list: readonly string[]) => list.map((s) => `"${s}"`).join(', ')

/** Names a field for the message about an unknown one: a wrong case or another kind's field is the usual slip. */
function unknownField(key: string, allowed: string[], kind?: UpstreamKind): string {
  const near = allowed.find((a) => a.toLowerCase() === key.toLowerCase())
  if (near) return `unknown field ${key} (did you mean ${near}?)`
  if (kind === 'openrouter' && key === 'models') return 'models is not allowed for kind openrouter (the router lists its models itself)'
  if (kind) {
    const owners = UPSTREAM_KINDS.filter((k) => KIND_FIELDS[k].includes(key))
    if (owners.length) return `${key} is not a field of kind ${kind} (only of ${owners.join(', ')})`
  }
  return `unknown field ${key}`
}

/** Checks one object's fields; `fail` adds the file and entry to the message. */
function reader(o: Obj, fail: (msg: string) => never, kind?: UpstreamKind) {
  const requiredStr = (field: string): string => {
    const v = o[field]
    if (v === undefined || v === null) fail(kind && !COMMON_FIELDS.includes(field) ? `${field} is required for kind ${kind}` : `${field} is required`)
    // Trimmed: a stray space pasted with a key would otherwise fail every request, not the start.
    if (typeof v !== 'string' || !v.trim()) fail(`${field} must be a non-empty string`)
    return v.trim()
  }
  const httpUrl = (field: string): string => {
    const raw = requiredStr(field)
    let u: URL
    try {
      u = new URL(raw)
    } catch {
      return fail(`${field} must be an absolute http(s) URL, got "${raw}"`)
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') fail(`${field} must be an http(s) URL, got "${raw}"`)
    return raw.replace(/\/+$/, '')
  }
  const enumOf = <T extends string>(field: string, list: readonly T[]): T => {
    const v = o[field]
    if (v === undefined || v === null) fail(`${field} is required (one of ${quoted(list)})`)
    if (!oneOf(list, v)) fail(`${field} must be one of ${quoted(list)}, got ${JSON.stringify(v)}`)
    return v
  }
  const decimal = (field: string): string => {
    const v = o[field]
    if (v === undefined || v === null) fail(`${field} is required`)
    if (typeof v === 'number') {
      // JSON.parse already turned it into a double; its JS string form is what would be stored, and an
      // exponent there (1e-7, 1e+21) means the number is too small or large to keep as a plain decimal.
      const s = String(v)
      if (s.includes('e')) fail(`${field} must be a plain decimal without an exponent, got ${s} (write it as a string, e.g. "0.0000001")`)
      if (!DECIMAL_RE.test(s)) fail(`${field} must be a non-negative decimal, got ${s}`)
      return s
    }
    if (typeof v !== 'string') fail(`${field} must be a non-negative decimal (a number or a string like "1.5"), got ${JSON.stringify(v)}`)
    const s = v.trim()
    if (/e/i.test(s)) fail(`${field} must be a plain decimal without an exponent, got "${v}"`)
    if (!DECIMAL_RE.test(s)) fail(`${field} must be a non-negative decimal like "1.5", got "${v}"`)
    return s
  }
  const noUnknown = (allowed: string[]) => {
    for (const key of Object.keys(o)) if (!allowed.includes(key)) fail(unknownField(key, allowed, kind))
  }
  return { requiredStr, httpUrl, enumOf, decimal, noUnknown }
}

function parseModel(raw: unknown, j: number, fail: (msg: string) => never): FileModel {
  const label = `models[${j}]${isObject(raw) && typeof raw.id === 'string' ? ` (id ${JSON.stringify(raw.id)})` : ''}`
  const failHere = (msg: string): never => fail(`${label}: ${msg}`)
  if (!isObject(raw)) return failHere('must be an object')
  const r = reader(raw, failHere)
  r.noUnknown(MODEL_FIELDS)
  const id = r.requiredStr('id')
  if (!MODEL_ID_RE.test(id)) failHere(`id must look like vendor/name (lowercase letters, digits, ".", "-", "_"; ":" also after the slash), got "${id}"`)
  const upstreamModel = r.requiredStr('upstreamModel')
  const name = r.requiredStr('name')
  const context = raw.context
  if (context === undefined || context === null) failHere('context is required')
  if (typeof context !== 'number' || !Number.isSafeInteger(context) || context <= 0) failHere(`context must be a positive integer (tokens), got ${JSON.stringify(context)}`)
  const model: FileModel = { id, upstreamModel, name, context: context as number, prompt: r.decimal('prompt'), completion: r.decimal('completion') }
  if (raw.cachedPrompt !== undefined && raw.cachedPrompt !== null) model.cachedPrompt = r.decimal('cachedPrompt')
  if (raw.type !== undefined && raw.type !== null) {
    if (!oneOf(MODEL_TYPES, raw.type)) failHere(`type must be one of ${quoted(MODEL_TYPES)}, got ${JSON.stringify(raw.type)}`)
    model.type = raw.type as FileModel['type']
  }
  return model
}

function parseEntry(raw: unknown, i: number, path: string, seen: Map<string, number>, fileFail: (msg: string) => never): UpstreamEntry {
  const label = `upstreams[${i}]${isObject(raw) && typeof raw.id === 'string' ? ` (id ${JSON.stringify(raw.id)})` : ''}`
  const fail = (msg: string): never => fileFail(`${label}: ${msg}`)
  if (!isObject(raw)) return fail('must be an object')

  const id = reader(raw, fail).requiredStr('id')
  if (!ID_RE.test(id)) fail(`id must be 1–32 characters of lowercase letters, digits, "_" and "-", starting with a letter or digit, got "${id}"`)
  if (RESERVED_IDS.includes(id)) fail(`id "${id}" is reserved for the router configured by the environment (OPENROUTER_* / FALLBACK_UPSTREAM_*)`)
  const earlier = seen.get(id)
  if (earlier !== undefined) fail(`id "${id}" is already used by upstreams[${earlier}]`)
  seen.set(id, i)

  if (raw.kind === undefined || raw.kind === null) fail(`kind is required (one of ${quoted(UPSTREAM_KINDS)})`)
  if (!oneOf(UPSTREAM_KINDS, raw.kind)) return fail(`kind must be one of ${quoted(UPSTREAM_KINDS)}, got ${JSON.stringify(raw.kind)}`)
  const kind = raw.kind
  const r = reader(raw, fail, kind)
  // Before the required fields: a misspelt `apikey` should be reported as such, not as a missing `apiKey`.
  r.noUnknown([...COMMON_FIELDS, ...KIND_FIELDS[kind]])

  const common: { id: string; baseUrl: string; caFile?: string; residency: Residency; currency: Currency } = {
    id,
    baseUrl: r.httpUrl('baseUrl'),
    residency: r.enumOf('residency', RESIDENCIES),
    currency: r.enumOf('currency', CURRENCIES),
  }
  if (raw.caFile !== undefined && raw.caFile !== null) {
    const abs = resolve(dirname(path), r.requiredStr('caFile'))
    let pem: string
    try {
      pem = readFileSync(abs, 'utf8')
    } catch (e) {
      return fail(`caFile ${abs} cannot be read: ${e instanceof Error ? e.message : String(e)}`)
    }
    if (!pem.includes(PEM_MARK)) fail(`caFile ${abs} is not a PEM certificate (no "${PEM_MARK}" line)`)
    common.caFile = abs
  }

  if (kind === 'openrouter') return { ...common, kind, apiKey: r.requiredStr('apiKey') }

  const creds =
    kind === 'gigachat'
      ? { kind, authUrl: r.httpUrl('authUrl'), authKey: r.requiredStr('authKey'), scope: r.enumOf('scope', GIGACHAT_SCOPES) }
      : kind === 'yandex'
        ? { kind, apiKey: r.requiredStr('apiKey'), folderId: r.requiredStr('folderId') }
        : { kind, apiKey: r.requiredStr('apiKey') }

  if (raw.models === undefined || raw.models === null) fail(`models is required for kind ${kind}`)
  if (!Array.isArray(raw.models)) return fail('models must be an array')
  if (raw.models.length === 0) fail(`models must not be empty for kind ${kind}`)
  const models = raw.models.map((m, j) => parseModel(m, j, fail))
  const modelAt = new Map<string, number>()
  models.forEach((m, j) => {
    const first = modelAt.get(m.id)
    if (first !== undefined) fail(`models[${j}] (id ${JSON.stringify(m.id)}): id is already used by models[${first}]`)
    modelAt.set(m.id, j)
  })
  return { ...common, ...creds, models }
}

/**
 * Parses and checks an UPSTREAMS_FILE's text. `path` only for messages and for resolving relative
 * caFile paths (relative to the file's directory). Reads the caFiles, nothing else.
 */
export function parseUpstreamsFile(text: string, path: string): UpstreamEntry[] {
  const fileFail = (msg: string): never => {
    throw new UpstreamsFileError(`UPSTREAMS_FILE ${path}: ${msg}`)
  }
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (e) {
    return fileFail(`invalid JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
  if (!isObject(doc) || !Array.isArray(doc.upstreams)) return fileFail('the top level must be an object with an "upstreams" array')
  for (const key of Object.keys(doc)) if (key !== 'upstreams') fileFail(`unknown top-level field ${key} (only "upstreams" is read)`)
  if (doc.upstreams.length === 0) fileFail('"upstreams" is empty (list at least one upstream, or unset UPSTREAMS_FILE)')
  const seen = new Map<string, number>()
  return doc.upstreams.map((raw, i) => parseEntry(raw, i, path, seen, fileFail))
}

/**
 * The upstream list the gateway runs with: the env-configured routers first, then the file's entries
 * in file order.
 *
 * `primary` with `apiKey: ''` is the built-in demo router (no OPENROUTER_API_KEY): OpenRouterEntry's
 * key is a string, and '' is never a real key (the file rejects empty credentials). The demo is left
 * out when the file lists a router of its own, since then the demo would answer in place of a real one.
 */
export function upstreamList(input: {
  openrouter: { baseUrl: string; apiKey: string | null }
  fallback: { baseUrl: string; apiKey: string } | null
  file: UpstreamEntry[]
}): UpstreamEntry[] {
  const list: UpstreamEntry[] = []
  const demo = input.openrouter.apiKey === null
  if (!demo || !input.file.some((e) => e.kind === 'openrouter'))
    list.push({ id: 'primary', kind: 'openrouter', baseUrl: input.openrouter.baseUrl, apiKey: input.openrouter.apiKey ?? '', residency: 'foreign', currency: 'USD' })
  if (input.fallback) list.push({ id: 'fallback', kind: 'openrouter', baseUrl: input.fallback.baseUrl, apiKey: input.fallback.apiKey, residency: 'foreign', currency: 'USD' })
  list.push(...input.file)
  return list
}
