// Responses that remember (issue 28): a response created without `store: false` is kept for 30 days
// (its input items, output items and usage), and `previous_response_id` expands the chain it names
// into `input` before the request goes to the stateless router — held and billed on the whole
// expanded input, like any request that sent that history itself. The same turn serves HTTP (plain
// or SSE) and the WebSocket mode (ws.ts), whose chains may also live in the connection's memory.

import { RETENTION } from '../content/terms'
import { exclusively } from '../db/leases'
import type { Db } from '../db/types'
import { MB } from '../lib/body'
import { sha256 } from '../lib/crypto'
import { invalidRequest, isUniqueViolation, OpenAIError } from '../lib/errors'
import { isObject } from '../lib/json'
import { dataOf, eventsOf, SseSplitter } from '../lib/sse'
import { can } from '../teams/roles'
import type { Caller } from './callers'
import type { ResponsesBody } from './responses'
import { type Owner, responsesStore } from './responses-store'
import type { StoredResponseRow } from './schema'

const DAY = 86_400_000
const RETENTION_MS = RETENTION.storedResponsesDays * DAY
/** What one chain may hold, its items as JSON: the expanded request stays well inside what /v1 reads in one body (32 MB). */
export const CHAIN_LIMIT_BYTES = 16 * MB
/** Links walked to expand a stored chain; the row after the last one holds the whole history itself. */
export const MAX_CHAIN_DEPTH = 1000

/** A chain as the next request continues it. */
export type Context = {
  /** Every item so far, oldest first: each response's input items, then its output. */
  items: unknown[]
  /** Their size as JSON, in UTF-8 bytes. */
  bytes: number
  /** The stored response the items end with (a stored continuation points at it); null when the last one was not stored. */
  parent: { id: string; depth: number; chainBytes: number; expiresAt: number } | null
  /** The stored rows the items come from, renewed when the chain continues. */
  storedIds: string[]
}

export const EMPTY_CONTEXT: Context = Object.freeze({ items: [], bytes: 0, parent: null, storedIds: [] }) as unknown as Context

/** The request's share of a turn: what goes to the router and what it adds to the chain. */
export type Plan = { forward: Record<string, unknown>; added: unknown[]; addedBytes: number; previousId: string | null; store: boolean }

type Json = Record<string, unknown>

const byteSize = (v: unknown) => Buffer.byteLength(JSON.stringify(v))

/**
 * Whose responses a caller reads, continues and deletes: the person's own — in a team too, where a
 * member's responses are theirs (another member gets the 404 of a response that is not there) and
 * owners and admins reach every member's, as the activity log does (teams/roles.ts responses.all).
 * Every path goes through here: GET, input_items, DELETE and previous_response_id, over HTTP and the WebSocket.
 */
export const ownerOf = (caller: Caller): Owner => ({ userId: caller.userId, teamId: caller.teamId, all: caller.team !== null && can(caller.team.role, 'responses.all') })

export const previousNotFound = (id: string, why = 'не существует, удалён, истёк (ответы хранятся 30 дней) или создан другим аккаунтом') =>
  new OpenAIError(404, `Ответ ${id} не найден: он ${why}.`, 'invalid_request_error', 'previous_response_not_found', { param: 'previous_response_id' })

const responseNotFound = (id: string) =>
  new OpenAIError(404, `Ответ ${id} не найден: он не существует, удалён, истёк или создан другим аккаунтом.`, 'invalid_request_error', 'response_not_found', {
    param: 'response_id',
  })

/** `input` as items: a string is one user message. */
export function inputItems(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }]
  return Array.isArray(input) ? input : []
}

/** The fields of a create request that the router never sees: the chain is expanded here. */
const OURS = ['previous_response_id', 'store', 'generate'] as const

/**
 * What the router gets for `body` continuing `ctx`: the chain's items, then the new ones. A continuation
 * that would take the chain past CHAIN_LIMIT_BYTES is refused (400); a request that continues nothing
 * never is (it is bounded like any body), so a chain holds at most the limit plus one request.
 */
export function plan(body: ResponsesBody, ctx: Context, opts: { remembered: boolean } = { remembered: true }): Plan {
  const added = inputItems(body.input)
  // A request that continues nothing and is not remembered is not measured (its body may be 32 MB).
  const addedBytes = opts.remembered || ctx.items.length > 0 ? byteSize(added) : 0
  if (ctx.items.length > 0 && ctx.bytes + addedBytes > CHAIN_LIMIT_BYTES)
    throw invalidRequest(
      `Цепочка ответов стала больше ${CHAIN_LIMIT_BYTES / MB} МБ. Начните новую: передайте нужную часть истории в input без previous_response_id.`,
      'previous_response_id',
      'chain_too_large',
    )
  const forward: Json = { ...body }
  for (const k of OURS) delete forward[k]
  // Without a chain the input goes exactly as it came (a string stays a string).
  if (ctx.items.length > 0) forward.input = [...ctx.items, ...added]
  const previousId = typeof body.previous_response_id === 'string' ? body.previous_response_id : null
  return { forward, added, addedBytes, previousId, store: body.store !== false }
}

/** The Response object with the id the client chained from (the router, stateless, says null). */
export function withPrevious(response: Json, previousId: string | null): Json {
  return previousId ? { ...response, previous_response_id: previousId } : response
}

/** Items of a response row as GET …/input_items lists them: each with an id, message content as parts. */
function listed(item: unknown, rowId: string, index: number): unknown {
  if (!isObject(item)) return item
  const id = typeof item.id === 'string' ? item.id : undefined
  const derived = () => `${item.type === 'message' || item.type === undefined ? 'msg' : 'item'}_${sha256(`${rowId}:${index}`).slice(0, 40)}`
  if (item.type === 'message' || (item.type === undefined && 'role' in item)) {
    const role = String(item.role)
    const content =
      typeof item.content === 'string'
        ? [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: item.content, ...(role === 'assistant' ? { annotations: [] } : {}) }]
        : item.content
    return { ...item, id: id ?? derived(), type: 'message', role, content, status: item.status ?? 'completed' }
  }
  return { ...item, id: id ?? derived() }
}

/** The stateless create (protocols.responses): holds, forwards, relays and settles one request. */
export type Forward = (caller: Caller, body: ResponsesBody, signal: AbortSignal) => Promise<unknown>

export function storedResponsesService(db: Db, forward: Forward) {
  const store = responsesStore(db)

  /** The chain ending with the caller's response `id`, or a 404 previous_response_not_found. */
  async function load(caller: Caller, id: string): Promise<Context> {
    const rows = await store.chain(id, ownerOf(caller), new Date(), MAX_CHAIN_DEPTH)
    const last = rows.at(-1)
    if (!last || last.id !== id) throw previousNotFound(id)
    if (rows[0]!.parentId !== null) throw previousNotFound(id, 'продолжает цепочку, начало которой удалено или истекло')
    const items: unknown[] = []
    for (const r of rows) items.push(...r.input, ...r.output)
    return {
      items,
      bytes: last.chainBytes,
      parent: { id: last.id, depth: last.depth, chainBytes: last.chainBytes, expiresAt: last.expiresAt.getTime() },
      storedIds: rows.map((r) => r.id),
    }
  }

  /**
   * The chain after a finished response: in memory always (the WebSocket's), and in the database when
   * the request stores it. A storage failure is logged and leaves the chain in memory only.
   */
  async function remember(caller: Caller, ctx: Context, p: Plan, response: Json): Promise<Context> {
    const output = Array.isArray(response.output) ? response.output : []
    const outputBytes = byteSize(output)
    const items = [...ctx.items, ...p.added, ...output]
    const bytes = ctx.bytes + p.addedBytes + outputBytes
    const memoryOnly: Context = { items, bytes, parent: null, storedIds: ctx.storedIds }
    const id = response.id
    if (!p.store || typeof id !== 'string') return memoryOnly
    // A chain whose last response is not stored, or one as deep as we walk, starts over in this row.
    const parent = ctx.parent && ctx.parent.depth < MAX_CHAIN_DEPTH ? ctx.parent : null
    const inline = parent === null
    const rowBytes = (inline ? ctx.bytes : 0) + p.addedBytes + outputBytes
    const now = Date.now()
    const { output: _o, usage, ...rest } = response
    const row: StoredResponseRow = {
      id,
      userId: caller.userId,
      teamId: ownerOf(caller).teamId,
      parentId: parent?.id ?? null,
      model: String(response.model ?? ''),
      status: String(response.status ?? 'completed'),
      input: inline ? [...ctx.items, ...p.added] : p.added,
      output,
      usage: isObject(usage) ? usage : null,
      response: rest,
      bytes: rowBytes,
      chainBytes: (parent?.chainBytes ?? 0) + rowBytes,
      depth: parent ? parent.depth + 1 : 0,
      createdAt: new Date(now),
      expiresAt: new Date(now + RETENTION_MS),
    }
    // Ancestors are renewed only once the chain's last stored response is a day old.
    const renew = parent && parent.expiresAt < now + RETENTION_MS - DAY ? ctx.storedIds : []
    try {
      await store.insert(row, renew, row.expiresAt, DAY)
    } catch (e) {
      console.error(`[responses] ${id} not stored${isUniqueViolation(e) ? ' (the id is taken)' : ''}: ${(e as Error).message}`)
      return memoryOnly
    }
    return {
      items,
      bytes,
      parent: { id, depth: row.depth, chainBytes: row.chainBytes, expiresAt: row.expiresAt.getTime() },
      storedIds: inline ? [id] : [...ctx.storedIds, id],
    }
  }

  return {
    load,
    remember,

    /**
     * POST /v1/responses: the chain expanded, the request forwarded like any other, the answer (plain, or
     * the stream through a StreamTap) remembered unless `store: false`.
     */
    async create(caller: Caller, body: ResponsesBody, signal: AbortSignal): Promise<unknown> {
      if (body.generate !== undefined) throw invalidRequest('generate поддерживается только в режиме WebSocket (GET /v1/responses с заголовком Upgrade: websocket)', 'generate')
      const ctx = body.previous_response_id === undefined ? EMPTY_CONTEXT : await load(caller, body.previous_response_id)
      const store = body.store !== false
      const p = plan(body, ctx, { remembered: store })
      const answer = await forward(caller, p.forward as ResponsesBody, signal)
      // Over HTTP only a stored response is remembered: without the database nothing could continue it.
      const keep = async (response: Json) => void (store && (await remember(caller, ctx, p, response)))
      if (answer instanceof Response) return store || p.previousId ? new StreamTap(p.previousId, keep).pipe(answer) : answer
      const response = withPrevious(answer as Json, p.previousId)
      await keep(response)
      return response
    },

    /** GET /v1/responses/{id}: the Response object as it was returned. */
    async get(caller: Caller, id: string) {
      const row = await store.get(id, ownerOf(caller), new Date())
      if (!row) throw responseNotFound(id)
      return { ...row.response, id: row.id, object: 'response', output: row.output, usage: row.usage }
    },

    /** GET /v1/responses/{id}/input_items: every item the response was generated from (the expanded chain), paged like OpenAI's lists. */
    async inputItems(caller: Caller, id: string, q: { limit?: number; order?: 'asc' | 'desc'; after?: string }) {
      const rows = await store.chain(id, ownerOf(caller), new Date(), MAX_CHAIN_DEPTH)
      if (rows.at(-1)?.id !== id) throw responseNotFound(id)
      const all: unknown[] = []
      for (const [n, r] of rows.entries()) {
        for (const [i, item] of r.input.entries()) all.push(listed(item, r.id, i))
        if (n < rows.length - 1) for (const [i, item] of r.output.entries()) all.push(listed(item, r.id, r.input.length + i))
      }
      if (q.order !== 'asc') all.reverse()
      let start = 0
      if (q.after !== undefined) {
        start = all.findIndex((item) => isObject(item) && item.id === q.after) + 1
        if (start === 0) throw invalidRequest(`Элемента ${q.after} нет среди входных элементов ответа ${id}`, 'after')
      }
      const limit = q.limit ?? 20
      const data = all.slice(start, start + limit)
      const idOf = (item: unknown) => (isObject(item) && typeof item.id === 'string' ? item.id : null)
      return { object: 'list' as const, data, first_id: idOf(data[0]), last_id: idOf(data.at(-1)), has_more: start + limit < all.length }
    },

    /** DELETE /v1/responses/{id}. */
    async delete(caller: Caller, id: string) {
      if (!(await store.delete(id, ownerOf(caller)))) throw responseNotFound(id)
      return { id, object: 'response' as const, deleted: true as const }
    },
  }
}

export type StoredResponses = ReturnType<typeof storedResponsesService>

const PURGE_LEASE = 'stored-responses-purge'
const PURGE_LEASE_MS = 10 * 60_000

/** The retention job (hourly): responses past their 30 days go, on one instance at a time. */
export async function purgeExpiredResponses(db: Db, now = new Date()): Promise<number> {
  const done = await exclusively(db, PURGE_LEASE, PURGE_LEASE_MS, () => responsesStore(db).purgeExpired(now), { wait: false })
  return done.ran ? done.value : 0
}

/**
 * Reads one relayed Responses stream (the HTTP stream's events, as chat.ts's relay writes them) and
 * rewrites what a remembered response changes: lifecycle events name the previous response, and the
 * final one (response.completed / response.incomplete) is handed to `onFinal` — its chain stored —
 * before it goes on, so a client that chains at once always finds it.
 */
export class StreamTap {
  private readonly splitter = new SseSplitter()
  private readonly encoder = new TextEncoder()
  /** The final Response object, once seen. */
  final: Json | null = null

  constructor(
    private readonly previousId: string | null,
    private readonly onFinal: (response: Json) => Promise<void>,
  ) {}

  /** One event's data as it goes on (the same JSON text when nothing changes). */
  data(data: string): string | Promise<string> {
    if (data.includes('"type":"response.completed"') || data.includes('"type":"response.incomplete"')) {
      let obj: Json
      try {
        obj = JSON.parse(data) as Json
      } catch {
        return data
      }
      if (!isObject(obj.response) || (obj.type !== 'response.completed' && obj.type !== 'response.incomplete')) return data
      const response = withPrevious(obj.response, this.previousId)
      this.final = response
      return this.onFinal(response).then(() => JSON.stringify({ ...obj, response }))
    }
    // Only a Response object has this key, and text inside it is escaped: the match is the key itself.
    if (this.previousId && data.includes('"previous_response_id":null'))
      return data.replace('"previous_response_id":null', `"previous_response_id":${JSON.stringify(this.previousId)}`)
    return data
  }

  /** Complete events of the stream's next bytes as one block ('' while an event is incomplete); null: the stream ended. */
  block(chunk: Uint8Array | null): string {
    if (chunk) return this.splitter.pushBlock(chunk)
    const rest = this.splitter.rest()
    return rest ? `${rest}\n\n` : ''
  }

  /** Whether a block carries anything to rewrite (most carry only deltas, passed on as they are). */
  private touches(block: string): boolean {
    return block.includes('"type":"response.completed"') || block.includes('"type":"response.incomplete"') || (!!this.previousId && block.includes('"previous_response_id":null'))
  }

  /** The block as SSE text again, rewritten. */
  async rewrite(block: string): Promise<string> {
    if (!this.touches(block)) return block
    let out = ''
    for (const event of eventsOf(block)) {
      const data = dataOf(event)
      const at = event.indexOf('data:')
      out += data === undefined || at < 0 ? `${event}\n\n` : `${event.slice(0, at)}data: ${await this.data(data)}\n\n`
    }
    return out
  }

  /** The block's events as WebSocket frames: each event's JSON, rewritten; comments (keep-alives) dropped. */
  async frames(block: string): Promise<string[]> {
    const touched = this.touches(block)
    const out: string[] = []
    for (const event of eventsOf(block)) {
      const data = dataOf(event)
      if (data !== undefined) out.push(touched ? await this.data(data) : data)
    }
    return out
  }

  /** The HTTP stream through the tap: the same SSE, rewritten where the chain changes it. */
  pipe(res: Response): Response {
    const through = async (chunk: Uint8Array | null, c: TransformStreamDefaultController<Uint8Array>) => {
      const block = this.block(chunk)
      if (block) c.enqueue(this.encoder.encode(await this.rewrite(block)))
    }
    const body = res.body!.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform: (chunk, c) => through(chunk, c), flush: (c) => through(null, c) }))
    return new Response(body, { status: res.status, headers: res.headers })
  }
}
