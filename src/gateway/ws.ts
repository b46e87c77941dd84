// The Responses API's WebSocket mode (issue 28, protocols.md 1.15): `GET /v1/responses` upgraded,
// credentials checked at the handshake as on HTTP. Each `response.create` event is one turn, held,
// forwarded and settled exactly like an HTTP request (protocols.responses → chat.ts's pipeline),
// answered with the HTTP stream's very events, one JSON text frame each. The connection remembers its
// last response's chain, so `previous_response_id` continues it without a database read — and even
// with `store: false`; stored responses are read from the database (any instance's). One response in
// flight per connection; a slow reader pauses the upstream instead of filling memory; a dropped
// connection stops its turn at once, which releases or settles its hold.
import type { ServerWebSocket } from 'bun'
import type { Config } from '../config'
import { BodyRejected, MB, parseJson, V1_BODY_LIMIT } from '../lib/body'
import { sha256 } from '../lib/crypto'
import { invalidRequest, OpenAIError } from '../lib/errors'
import { openAIFailure } from '../lib/http'
import { isObject } from '../lib/json'
import type { Caller } from './callers'
import type { ResponsesBody } from './responses'
import { type Context, EMPTY_CONTEXT, plan, type StoredResponses, StreamTap, withPrevious } from './stored-responses'

/** Bun's WebSocket settings (the server's only WebSocket endpoint is this one). */
export const WS_SERVER_OPTIONS = {
  // Twice the largest frame we read: up to it a frame gets our error event (as HTTP gets our 413);
  // Bun closes the connection (1009) on a larger one without buffering it.
  maxPayloadLength: 2 * V1_BODY_LIMIT,
  // A turn waits for `drain` before reading more of the upstream, so at most one block of events is
  // queued; the limit only has to admit the largest single event (a final response with its output).
  backpressureLimit: 2 * V1_BODY_LIMIT,
  closeOnBackpressureLimit: false,
  // Idle connections are pinged shortly before this many seconds pass and closed when the client
  // stops answering (a dead peer behind a NAT is noticed in about two minutes).
  idleTimeout: 120,
  sendPings: true,
  perMessageDeflate: false,
}

/** Close codes (RFC 6455): normal end (lifetime over), going away (shutdown), policy (limits, credentials). */
const CLOSE_NORMAL = 1000
const CLOSE_GOING_AWAY = 1001
const CLOSE_POLICY = 1008

/** Every open connection of this process, for a graceful stop (Bun's stop waits for them). */
const live = new Set<{ shutdown(): void }>()

/**
 * Before the server stops: idle connections close at once (1001), the others right after their turn,
 * so a graceful stop does not wait for sockets that may stay open an hour. Stored chains continue on
 * another instance; a connection's own memory (store: false) ends with it.
 */
export function closeSockets() {
  for (const conn of live) conn.shutdown()
}

type Json = Record<string, unknown>

export type SocketDeps = {
  config: Config
  stored: StoredResponses
  /** The HTTP route's create, stateless: holds, forwards and relays (protocols.responses). */
  forward: (caller: Caller, body: ResponsesBody, signal: AbortSignal) => Promise<unknown>
  /** The HTTP route's body check (nulls dropped, the ResponsesRequest schema); throws the 400. */
  validate: (body: unknown) => ResponsesBody
  /** Whether the model and the rest of the shape are acceptable (what a hold would refuse first), without holding. */
  shape: (body: ResponsesBody) => void
}

/** What the route hands over at the handshake. */
export type Handshake = {
  caller: Caller
  /** The credentials again, checked before every turn (a disabled key stops the next turn, as on HTTP). */
  again: () => Promise<Caller>
}

type Handlers = {
  open(ws: ServerWebSocket<Handlers>): void
  message(ws: ServerWebSocket<Handlers>, message: string | Buffer): void
  drain(ws: ServerWebSocket<Handlers>): void
  close(ws: ServerWebSocket<Handlers>, code: number, reason: string): void
}

/** An error event in OpenAI's WebSocket shape: `{type:"error", status, error:{type, code, message, param}}`. */
export function errorEvent(e: OpenAIError) {
  const error = { type: e.type, code: e.code, message: e.message, param: e.extra.param ?? null, ...(e.extra.action ? { action: e.extra.action } : {}) }
  return JSON.stringify({ type: 'error', status: e.status, error })
}

/** Any failure of a turn as the error it tells the client (validation as on HTTP; the unexpected logged, a 500 without internals). */
const asOpenAI = (e: unknown): OpenAIError =>
  e instanceof OpenAIError ? e : openAIFailure((e as { code?: unknown })?.code === 'VALIDATION' ? 'VALIDATION' : '', e, '/v1/responses', 'WS')

const warmupId = () => `resp_${sha256(crypto.randomUUID()).slice(0, 48)}`

/** The events that end a turn: once one is sent the client may send the next response.create. */
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error'])
/** A cheap test before the parse: the same names, as they stand in a frame's text. */
const MAYBE_TERMINAL = new RegExp(`"type":\\s*"(${[...TERMINAL].map((t) => t.replaceAll('.', '\\.')).join('|')})"`)

/** Whether a frame is a terminal event (parsed only when its text may be one: a few frames a turn). */
function isTerminal(frame: string): boolean {
  if (!MAYBE_TERMINAL.test(frame)) return false
  try {
    return TERMINAL.has((JSON.parse(frame) as { type?: string }).type ?? '')
  } catch {
    return false
  }
}

export function responsesSocket(deps: SocketDeps) {
  const { config, stored } = deps
  const perKey = new Map<string, number>()
  const perAccount = new Map<string, number>()
  const maxAgeMin = Math.round(config.responsesWsMaxAgeSec / 60)

  const take = (map: Map<string, number>, id: string) => map.set(id, (map.get(id) ?? 0) + 1)
  const give = (map: Map<string, number>, id: string) => {
    const n = (map.get(id) ?? 1) - 1
    if (n > 0) map.set(id, n)
    else map.delete(id)
  }

  /** One connection: its caller, its chain, its turn in flight. */
  class Connection {
    private ws!: ServerWebSocket<Handlers>
    private caller: Caller
    /** The last response's id and the chain after it. */
    private last: { id: string; ctx: Context } | null = null
    /** The turn in flight as the client sees it (until its terminal event is sent); aborting it stops the upstream call. */
    private turn: AbortController | null = null
    /** Every turn still running: one after its terminal event only reads its stream's end (its hold already settled or settling). */
    private readonly running = new Set<AbortController>()
    private drained: (() => void) | null = null
    private expired = false
    private stopping = false
    private gone = false
    private lifetime: ReturnType<typeof setTimeout> | undefined
    private readonly keyId: string | null

    constructor(
      private readonly hs: Handshake,
      /** Why the connection is refused (a limit), said in its first event before it closes. */
      private readonly refusal: OpenAIError | null,
    ) {
      this.caller = hs.caller
      this.keyId = hs.caller.apiKey?.id ?? null
    }

    handlers(): Handlers {
      return {
        open: (ws) => this.open(ws),
        message: (_ws, message) => this.message(message),
        drain: () => this.release(),
        close: () => this.closed(),
      }
    }

    private open(ws: ServerWebSocket<Handlers>) {
      this.ws = ws
      if (this.refusal) {
        this.send(errorEvent(this.refusal))
        ws.close(CLOSE_POLICY, 'Слишком много соединений')
        return
      }
      this.lifetime = setTimeout(() => this.expire(), config.responsesWsMaxAgeSec * 1000)
      live.add(this)
    }

    shutdown() {
      this.stopping = true
      if (!this.turn) this.close(CLOSE_GOING_AWAY, 'Сервер перезапускается')
    }

    /** Sends a frame; false when the client is not keeping up (the caller then waits for drain). */
    private send(frame: string): boolean {
      if (this.gone) return true
      return this.ws.send(frame) > 0
    }

    private fail(e: unknown) {
      const err = asOpenAI(e)
      this.send(errorEvent(err))
      if (err.status === 401) this.close(CLOSE_POLICY, 'Ключ недействителен')
    }

    private close(code: number, reason: string) {
      if (!this.gone) this.ws.close(code, reason)
    }

    /** The lifetime is over: a clean close with the reason, after the turn in flight if there is one. */
    private expire() {
      this.expired = true
      if (this.turn) return
      this.send(
        errorEvent(
          new OpenAIError(
            400,
            `Соединение открыто ${maxAgeMin} мин — это предел. Откройте новое; ответы со store: true продолжаются по previous_response_id.`,
            'invalid_request_error',
            'websocket_connection_limit_reached',
          ),
        ),
      )
      this.close(CLOSE_NORMAL, `Предел ${maxAgeMin} мин: переподключитесь`)
    }

    private message(raw: string | Buffer) {
      if (this.refusal || this.gone) return
      let event: unknown
      try {
        if (typeof raw !== 'string') throw invalidRequest('Принимаются только текстовые кадры: JSON-события response.create', null, 'invalid_frame')
        const bytes = Buffer.from(raw)
        if (bytes.byteLength > V1_BODY_LIMIT) throw new OpenAIError(413, `Событие слишком большое (больше ${V1_BODY_LIMIT / MB} МБ)`, 'invalid_request_error', 'request_too_large')
        try {
          event = parseJson(bytes)
        } catch (e) {
          if (e instanceof BodyRejected) throw e
          throw invalidRequest('Кадр не является корректным JSON', null, 'invalid_json')
        }
        if (!isObject(event) || typeof event.type !== 'string') throw invalidRequest('Событие должно быть JSON-объектом с полем type', 'type', 'invalid_event')
        if (event.type !== 'response.create')
          throw invalidRequest(`Неизвестное событие ${JSON.stringify(event.type).slice(0, 80)}: поддерживается response.create`, 'type', 'unknown_event')
        if (this.turn) throw invalidRequest('Ответ уже выполняется: дождитесь response.completed (или error), затем отправьте следующий', null, 'response_already_in_flight')
        if (this.expired) return this.expire()
        if (this.stopping) return this.shutdown()
      } catch (e) {
        return this.fail(e)
      }
      const turn = new AbortController()
      this.turn = turn
      this.running.add(turn)
      void this.run(event as Json, turn).finally(() => {
        this.running.delete(turn)
        this.free(turn)
      })
    }

    /** The turn is over for the client (its terminal event sent, or it ended): the socket takes the next one. */
    private free(turn: AbortController) {
      if (this.turn !== turn) return
      this.turn = null
      if (this.stopping) this.shutdown()
      else if (this.expired) this.expire()
    }

    /** One response.create: checked, continued from its chain, held and relayed, remembered. */
    private async run(event: Json, turn: AbortController) {
      try {
        const { type: _type, stream: _stream, stream_id: _lane, background, ...fields } = event
        if (background === true) throw invalidRequest('background не поддерживается в режиме WebSocket', 'background')
        const body = deps.validate(fields)
        this.caller = await this.hs.again()
        const previousId = body.previous_response_id
        const ctx = previousId === undefined ? EMPTY_CONTEXT : this.last?.id === previousId ? this.last.ctx : await stored.load(this.caller, previousId)
        if (body.generate === false) return this.warmup(body, ctx)
        const p = plan(body, ctx)
        if (turn.signal.aborted) return
        const answer = await deps.forward(this.caller, { ...p.forward, stream: true } as ResponsesBody, turn.signal)
        if (!(answer instanceof Response)) throw new Error('the stream did not come back as a stream')
        const caller = this.caller
        const tap = new StreamTap(p.previousId, async (response) => {
          const next = await stored.remember(caller, ctx, p, response)
          if (typeof response.id === 'string') this.last = { id: response.id, ctx: next }
        })
        await this.relay(answer, tap, turn)
      } catch (e) {
        if (!turn.signal.aborted) this.fail(e)
      }
    }

    /**
     * The stream's events as frames; reads on only when the client has taken the last ones. Once the
     * terminal event is sent the socket is free (the settlement came before it, or goes on in the
     * background from the router's record); the stream's end is still read, its leftovers not sent.
     */
    private async relay(res: Response, tap: StreamTap, turn: AbortController) {
      const reader = res.body!.getReader()
      const stop = () => void reader.cancel().catch(() => {})
      turn.signal.addEventListener('abort', stop, { once: true })
      if (turn.signal.aborted) stop()
      let over = false
      try {
        for (;;) {
          const { done, value } = await reader.read()
          const block = tap.block(done ? null : value)
          let keepingUp = true
          if (block && !over) {
            const frames = await tap.frames(block)
            // Corked: a block's frames leave in one write, as the HTTP stream's block does.
            if (!this.gone)
              this.ws.cork(() => {
                for (const frame of frames) {
                  keepingUp = this.send(frame) && keepingUp
                  if (isTerminal(frame)) {
                    over = true
                    break
                  }
                }
              })
            if (over) this.free(turn)
          }
          if (done || this.gone) return
          // The next turn owns the drain once this one is over.
          if (!keepingUp && !over) await new Promise<void>((resolve) => (this.drained = resolve))
        }
      } catch (e) {
        if (!this.gone && !over) throw e
      } finally {
        turn.signal.removeEventListener('abort', stop)
      }
    }

    /** `generate: false`: the chain prepared and an id returned, no model called, nothing held or charged. */
    private warmup(body: ResponsesBody, ctx: Context) {
      deps.shape(body)
      const p = plan(body, ctx)
      const id = warmupId()
      const response = withPrevious(
        {
          id,
          object: 'response',
          created_at: Math.floor(Date.now() / 1000),
          status: 'completed',
          model: body.model ?? body.models?.[0] ?? null,
          output: [],
          error: null,
          incomplete_details: null,
          instructions: body.instructions ?? null,
          tools: body.tools ?? [],
          metadata: isObject(body.metadata) ? body.metadata : {},
          previous_response_id: null,
          usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, cost: 0, cost_rub: '0' },
        },
        p.previousId,
      )
      // Kept in the connection only: a warm-up costs nothing, so it takes no room in the database.
      this.last = { id, ctx: { items: [...ctx.items, ...p.added], bytes: ctx.bytes + p.addedBytes, parent: null, storedIds: ctx.storedIds } }
      this.send(JSON.stringify({ type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress' } }))
      this.send(JSON.stringify({ type: 'response.completed', sequence_number: 1, response }))
    }

    private release() {
      const resolve = this.drained
      this.drained = null
      resolve?.()
    }

    /** The client is gone: the turn stops at once (its hold released, or settled to what the upstream made). */
    private closed() {
      if (this.gone) return
      this.gone = true
      live.delete(this)
      clearTimeout(this.lifetime)
      for (const turn of this.running) turn.abort()
      this.release()
      this.last = null
      if (this.refusal) return
      if (this.keyId) give(perKey, this.keyId)
      give(perAccount, this.caller.userId)
    }

    /** Counts the connection against its key's and account's limits (per instance); the refusal when over. */
    static admit(caller: Caller): OpenAIError | null {
      const keyId = caller.apiKey?.id
      const over =
        keyId && (perKey.get(keyId) ?? 0) >= config.responsesWsPerKey
          ? `ключа «${caller.apiKey!.name}» (${config.responsesWsPerKey})`
          : (perAccount.get(caller.userId) ?? 0) >= config.responsesWsPerAccount
            ? `аккаунта (${config.responsesWsPerAccount})`
            : null
      if (over)
        return new OpenAIError(
          429,
          `Открыто максимальное число WebSocket-соединений для ${over}. Закройте лишние или дождитесь их завершения.`,
          'rate_limit_error',
          'too_many_connections',
          {
            shouldRetry: false,
          },
        )
      if (keyId) take(perKey, keyId)
      take(perAccount, caller.userId)
      return null
    }
  }

  return {
    /**
     * Upgrades the request (credentials already checked: a 401 never reaches here); false when it is
     * not a WebSocket handshake. Over a limit it still upgrades, to say why in an error event and close.
     */
    upgrade(request: Request, server: { upgrade(r: Request, o: { data: Handlers }): boolean } | null, hs: Handshake): boolean {
      if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket' || !server) return false
      const refusal = Connection.admit(hs.caller)
      const conn = new Connection(hs, refusal)
      if (server.upgrade(request, { data: conn.handlers() })) return true
      conn.handlers().close(undefined as never, 1006, '') // gives its slots back
      return false
    },
  }
}
