// One relayed stream: forwards the router's events to the client as they arrive, watches them for the
// usage and for errors, keeps the connection alive, and settles the request's hold exactly once.

import { dataOf, eventsOf, SseSplitter } from '../lib/sse'
import type { StreamReader, Usage } from './wire'

const KEEPALIVE_EVERY_MS = 15_000

/** The request a stream answers, as the relay sees it: the pipeline's Prepared. */
type Request = { responseId: string | null; firstByteAt: number | null }

/** What a stream delivered before it ended without its usage: the counts of the guess when the router has no record. */
export type Streamed = {
  /** Answer pieces relayed (about a token each). */
  pieces: number
  /** The prompt as the router counted it, when the stream said before its end (Messages' message_start). */
  promptTokens?: number
}

/** How a relayed stream ends its request: the pipeline's settle, release and reconcile. */
export type RelayBilling<Prepared extends Request> = {
  settle(p: Prepared, usage: Usage | undefined, upstreamId: string | null, status?: 'success' | 'cancelled', fallbackCompletion?: number, reportedModel?: unknown): Promise<number>
  release(p: Prepared, error: string, upstreamId?: string | null): Promise<void>
  /**
   * A stream that ended without its usage (the client left: cancelled; the router sent none: success):
   * charged the router's record of the generation, or a guess from `streamed` when it has none.
   */
  reconcile(p: Prepared, upstreamId: string | null, streamed: Streamed, status: 'success' | 'cancelled'): Promise<void>
  /** The router named the generation (once per stream: the hold remembers it). */
  known?(p: Prepared, upstreamId: string): void
  /** The longest silence from the router before the stream counts as dead. */
  idleMs: number
}

export class Relay<Prepared extends Request> {
  readonly stream: ReadableStream<Uint8Array>
  private readonly encoder = new TextEncoder()
  private readonly splitter = new SseSplitter()
  private upstreamId: string | null
  private pieces = 0
  private promptTokens: number | undefined
  private usage: Usage | undefined
  private finished = false
  private lastUpstreamAt = Date.now()
  private lastClientWriteAt = Date.now()
  private idleTimedOut = false
  private controller!: ReadableStreamDefaultController<Uint8Array>
  private readonly watch: ReturnType<typeof setInterval>

  constructor(
    private readonly p: Prepared,
    private readonly reader: StreamReader,
    res: Response,
    private readonly ac: AbortController,
    private readonly billing: RelayBilling<Prepared>,
  ) {
    this.upstreamId = res.headers.get('x-generation-id')
    if (this.upstreamId) billing.known?.(p, this.upstreamId)
    const body = res.body!.getReader()
    this.watch = setInterval(() => this.tick(), 1000)
    this.stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.controller = c
      },
      pull: async () => {
        for (;;) {
          let chunk: Awaited<ReturnType<typeof body.read>>
          try {
            chunk = await body.read()
          } catch (e) {
            return await this.fail(this.idleTimedOut ? 'Провайдер модели перестал отвечать.' : 'Соединение с провайдером модели прервано.', (e as Error)?.message ?? 'read failed')
          }
          if (chunk.done) return await this.end()
          this.lastUpstreamAt = Date.now()
          const block = this.splitter.pushBlock(chunk.value)
          const relayed = block ? this.relayBlock(block) : ''
          const out = typeof relayed === 'string' ? relayed : await relayed // only usage and error events wait for the database
          if (this.finished && !out) return
          if (out) {
            this.write(out)
            return
          }
        }
      },
      cancel: () => this.clientGone(),
    })
  }

  private write(text: string) {
    try {
      this.controller.enqueue(this.encoder.encode(text))
      this.lastClientWriteAt = Date.now()
    } catch {
      // the client is gone; clientGone() settles
    }
  }

  private tick() {
    const now = Date.now()
    if (now - this.lastUpstreamAt > this.billing.idleMs) {
      this.idleTimedOut = true
      this.ac.abort()
    } else if (now - this.lastClientWriteAt > KEEPALIVE_EVERY_MS) this.write(this.reader.keepAlive)
  }

  /** What to send for a block of complete upstream events; ordinary events pass through as they came. */
  private relayBlock(block: string): string | Promise<string> {
    if (this.finished) return ''
    if (this.upstreamId && this.reader.plain(block)) {
      const pieces = this.reader.pieces(block)
      if (pieces > 0) this.firstPiece()
      this.pieces += pieces
      return block
    }
    return this.relayEvents(eventsOf(block))
  }

  private async relayEvents(events: string[]): Promise<string> {
    let out = ''
    for (const event of events) {
      const piece = this.transform(event)
      out += typeof piece === 'string' ? piece : await piece
    }
    return out
  }

  /** Returns what to send for one upstream event (possibly nothing); settling events resolve after the commit. */
  private transform(event: string): string | Promise<string> {
    if (this.finished) return ''
    const data = dataOf(event)
    if (data === undefined) return `${event}\n\n` // comments (keep-alives), [DONE], other fields
    const seen = this.reader.inspect(event, data, !this.upstreamId)
    if (seen === 'drop') return '' // never relay a non-JSON data line: the SDK would throw on it
    if (!this.upstreamId && seen.id) {
      this.upstreamId = seen.id
      this.billing.known?.(this.p, seen.id)
    }
    if (seen.responseId) this.p.responseId ??= seen.responseId
    if (seen.promptTokens !== undefined) this.promptTokens = seen.promptTokens
    if (seen.error !== undefined) {
      // Mid-stream error (reference §1.5): bill nothing, tell the client in the protocol's shape, stop.
      this.finish()
      this.ac.abort()
      return this.billing
        .release(this.p, `mid-stream: ${seen.error || 'error'}`, this.upstreamId)
        .then(() => this.reader.errorEvent(`Провайдер модели прервал ответ: ${seen.error || 'ошибка'}`))
    }
    if (seen.usage) {
      const usage = seen.usage
      this.usage = usage
      // Relayed whether or not the client asked for include_usage, as the router sends it: clients
      // that never ask (AI SDK providers, curl) still get the token counts and the charge.
      return this.billing.settle(this.p, usage, this.upstreamId, 'success', 0, seen.model).then((charged) => seen.render!(usage, charged))
    }
    if (seen.piece) {
      this.firstPiece()
      this.pieces++
    }
    return `${event}\n\n`
  }

  /** The time to first token: when the first piece of the answer goes to the client. */
  private firstPiece() {
    this.p.firstByteAt ??= performance.now()
  }

  private finish() {
    this.finished = true
    clearInterval(this.watch)
  }

  /** The upstream ended the stream. */
  private async end() {
    const rest = this.splitter.rest()
    if (rest) this.write(await this.transform(rest))
    if (!this.finished) {
      this.finish()
      // No usage arrived: the router's record, as after a drop (the client need not wait for it; the hold stays until then).
      if (!this.usage) void this.billing.reconcile(this.p, this.upstreamId, this.streamed(), 'success')
    }
    try {
      this.controller.close()
    } catch {}
  }

  /** The upstream connection broke or went silent. */
  private async fail(message: string, detail: string) {
    if (!this.finished) {
      this.finish()
      if (this.usage) {
        /* already settled from the usage event */
      } else await this.billing.release(this.p, `${message} (${detail})`, this.upstreamId)
      this.write(this.reader.errorEvent(message))
    }
    try {
      this.controller.close()
    } catch {}
  }

  /** The client went away: stop the upstream, pay what the upstream reports for what it made. */
  clientGone() {
    if (this.finished) return
    this.finish()
    this.ac.abort()
    if (!this.usage) void this.billing.reconcile(this.p, this.upstreamId, this.streamed(), 'cancelled') // else settled from the usage event
  }

  private streamed(): Streamed {
    return { pieces: this.pieces, promptTokens: this.promptTokens }
  }
}
