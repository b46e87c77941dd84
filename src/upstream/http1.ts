// A small HTTP/1.1 client for the upstream router, on the sockets of Bun's own event loop (Bun.connect).
//
// Why not fetch: Bun's fetch runs every request on a separate HTTP thread, and at 64 concurrent
// requests the hand-offs between that thread and the JavaScript thread cost more CPU than the
// gateway's own work (bench/README.md: 0.19–0.21 → 0.15–0.16 ms of gateway CPU per request, c64
// throughput 63–64 % → 77–84 % of direct). undici, the well-kept alternative, measured no better here.
//
// Scope is what the router protocol needs: request bodies as a string or bytes; responses framed by
// Content-Length, chunked transfer encoding or the connection's close; keep-alive reuse; abort
// signals; TLS with certificate checks. Redirects are returned as they are (the router sends none),
// and no compression is asked for. Anything outside that scope (a streamed request body, an HTTP
// proxy from the environment) goes to fetch: see `http1FetchOrFetch`.
import type { Socket, SocketHandler } from 'bun'
import { PROCESS } from '../config'
import type { FetchLike } from './fetch-like'

export type { FetchLike }

export type Http1Options = {
  /**
   * An idle kept-alive connection older than this is closed instead of reused, or sooner when the
   * server announces a shorter `Keep-Alive: timeout=N`. A connection the server closed meanwhile is
   * noticed by its close, and the race in between by the one retry (see Connection.fail).
   */
  idleMs?: number
  /** Idle connections kept per origin. */
  maxIdlePerOrigin?: number
  /** Extra TLS settings (tests pass their own CA); certificates are always verified. */
  tls?: { ca?: string | string[] }
}

const MAX_HEAD_BYTES = 64 * 1024
/** Response body bytes queued for a slow reader before the socket stops reading. */
const BODY_HIGH_WATER = 256 * 1024

/** One request and its response on a connection. */
type Exchange = {
  url: URL
  head: string
  body: Uint8Array | string | null
  signal: AbortSignal | undefined
  resolve: (res: Response) => void
  reject: (e: unknown) => void
  /** The Response has been handed out (or the promise rejected). */
  answered: boolean
  /** Response bytes seen so far: a reused connection that closes before the first is simply stale. */
  received: number
  retried: boolean
  /** The connection carrying it now; null while one is being opened. */
  conn: Connection | null
  sentAt: number
  controller: ReadableStreamDefaultController<Uint8Array> | null
  onAbort: (() => void) | null
}

/** Unhooks the exchange from its abort signal and its connection. */
function detach(ex: Exchange) {
  if (ex.onAbort) ex.signal?.removeEventListener('abort', ex.onAbort)
  ex.onAbort = null
  ex.conn = null
}

/** Rejects the fetch promise, or errors the body stream when the Response is already out. */
function failExchange(ex: Exchange, error: unknown) {
  detach(ex)
  if (!ex.answered) {
    ex.answered = true
    ex.reject(error)
    return
  }
  try {
    ex.controller?.error(error)
  } catch {}
}

/** A stale kept-alive connection is told apart from a failed request by this: it fails at once. */
const STALE_RETRY_WITHIN_MS = 1000

type Framing = { kind: 'length'; left: number } | { kind: 'chunked'; step: 'size' | 'data' | 'data-end' | 'trailer'; left: number } | { kind: 'close' } | { kind: 'none' }

class Connection {
  socket: Socket<Connection> | null = null
  exchange: Exchange | null = null
  idleSince = 0
  /** How long this connection may idle: the pool's limit, or less if the server said so. */
  idleLimitMs = Infinity
  reused = false
  closed = false
  /** Unparsed bytes: the response head while it arrives, or a chunk-size line split across packets. */
  private pending: Uint8Array | null = null
  private framing: Framing | null = null
  private keepAlive = true
  /** Bytes of the request not yet accepted by the socket (written on drain). */
  private unsent: Uint8Array | null = null

  constructor(
    readonly origin: string,
    private readonly pool: Pool,
  ) {}

  send(ex: Exchange) {
    this.exchange = ex
    ex.conn = this
    ex.sentAt = Date.now()
    this.pending = null
    this.framing = null
    this.keepAlive = true
    this.socket!.ref()
    if (typeof ex.body === 'string' || ex.body === null) this.write(ex.body === null ? ex.head : ex.head + ex.body)
    else if (this.write(ex.head)) this.write(ex.body)
  }

  /** Writes what the socket takes now and keeps the rest for `drain`. Returns false when data is waiting. */
  private write(data: string | Uint8Array): boolean {
    if (this.unsent) {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data
      this.unsent = Buffer.concat([this.unsent, bytes])
      return false
    }
    const written = this.socket!.write(data)
    if (written < 0) {
      this.fail(new Error('the connection to the upstream closed while sending'))
      return false
    }
    const total = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength
    if (written < total) {
      // write() counts bytes; a string's rest is cut from its UTF-8 form
      this.unsent = (typeof data === 'string' ? Buffer.from(data) : data).subarray(written)
      return false
    }
    return true
  }

  onDrain() {
    const rest = this.unsent
    if (!rest || !this.socket) return
    this.unsent = null
    this.write(rest)
  }

  onData(chunk: Uint8Array) {
    const ex = this.exchange
    if (!ex) {
      // Bytes nobody asked for (a server talking out of turn): this connection cannot be trusted.
      this.destroy()
      return
    }
    ex.received += chunk.byteLength
    try {
      this.consume(ex, chunk)
    } catch (e) {
      this.fail(e instanceof Error ? e : new Error(String(e)))
    }
  }

  private consume(ex: Exchange, chunk: Uint8Array): void {
    let data = chunk
    if (!this.framing) {
      data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk
      const end = Buffer.from(data.buffer, data.byteOffset, data.byteLength).indexOf('\r\n\r\n')
      if (end < 0) {
        if (data.byteLength > MAX_HEAD_BYTES) throw new Error('the upstream sent a response head over 64 KB')
        this.pending = data
        return
      }
      this.pending = null
      if (end > MAX_HEAD_BYTES) throw new Error('the upstream sent a response head over 64 KB')
      const head = Buffer.from(data.buffer, data.byteOffset, end).toString('latin1')
      const body = data.subarray(end + 4)
      const parsed = parseHead(head)
      if (parsed.status >= 100 && parsed.status < 200) {
        this.consume(ex, body) // 100 Continue and friends: the real head follows
        return
      }
      this.framing = framingOf(parsed, ex.head)
      this.keepAlive = parsed.keepAlive && this.framing.kind !== 'close'
      if (parsed.keepAliveSeconds !== null) this.idleLimitMs = Math.max(0, parsed.keepAliveSeconds * 1000 - 1000)
      // The common plain answer arrives whole in one packet: hand it out without a stream.
      if (this.framing.kind === 'length' && body.byteLength === this.framing.left) {
        this.answer(ex, new Response(body as Uint8Array<ArrayBuffer>, { status: parsed.status, statusText: parsed.statusText, headers: parsed.headers }))
        this.complete()
        return
      }
      if (this.framing.kind === 'none') {
        this.answer(ex, new Response(null, { status: parsed.status, statusText: parsed.statusText, headers: parsed.headers }))
        this.complete()
        return
      }
      const stream = new ReadableStream<Uint8Array>(
        {
          start: (c) => {
            ex.controller = c
          },
          pull: () => this.socket?.resume(),
          cancel: () => {
            // The reader gave up on the body: the rest of it would arrive for nobody.
            ex.controller = null
            if (this.exchange !== ex) return
            this.finish(ex)
            this.destroy()
          },
        },
        { highWaterMark: BODY_HIGH_WATER, size: (chunk) => chunk?.byteLength ?? 0 },
      )
      this.answer(ex, new Response(stream, { status: parsed.status, statusText: parsed.statusText, headers: parsed.headers }))
      data = body
    }
    this.body(ex, data)
  }

  /**
   * Passes the body bytes of one packet to the reader as a single chunk (an SSE stream's events
   * arrive as many small HTTP chunks: one read per packet, as fetch gives, not one per chunk), and
   * completes the exchange at the body's end.
   */
  private body(ex: Exchange, data: Uint8Array) {
    const pieces: Uint8Array[] = []
    const end = this.walk(data, pieces)
    this.emit(ex, pieces)
    if (end !== null) this.complete(end)
  }

  /** Collects the body bytes of `data` into `pieces`; returns the count of bytes after the body's end, or null while it goes on. */
  private walk(data: Uint8Array, pieces: Uint8Array[]): number | null {
    const f = this.framing!
    let at = 0
    while (at < data.byteLength) {
      if (f.kind === 'close') {
        pieces.push(data.subarray(at))
        return null
      }
      if (f.kind === 'length' || (f.kind === 'chunked' && f.step === 'data')) {
        // the next f.left bytes are body
        const take = Math.min(f.left, data.byteLength - at)
        pieces.push(data.subarray(at, at + take))
        at += take
        f.left -= take
        if (f.left > 0) continue
        if (f.kind === 'length') return data.byteLength - at
        f.step = 'data-end'
        continue
      }
      if (f.kind !== 'chunked') return data.byteLength - at
      // a chunk-size line, the CRLF after a chunk's data, or a trailer line
      const line = this.line(data, at)
      if (!line) return null
      at = line.next
      if (f.step === 'size') {
        const size = chunkSize(line.bytes)
        if (size === 0) f.step = 'trailer'
        else {
          f.step = 'data'
          f.left = size
        }
      } else if (line.bytes.byteLength > 0) {
        if (f.step === 'data-end') throw new Error('malformed chunked encoding from the upstream')
        // a trailer field: ignored
      } else if (f.step === 'data-end') f.step = 'size'
      else return data.byteLength - at // the empty line after the trailers
    }
    return null
  }

  /**
   * The next line from data[at] without its CR LF, joined with bytes kept from the previous packet;
   * null when it is not complete yet. Usually a view into the packet, nothing copied.
   */
  private line(data: Uint8Array, at: number): { bytes: Uint8Array; next: number } | null {
    const newline = data.indexOf(0x0a, at)
    if (newline < 0) {
      this.pending = this.pending ? Buffer.concat([this.pending, data.subarray(at)]) : data.subarray(at)
      if (this.pending.byteLength > 8192) throw new Error('malformed chunked encoding from the upstream')
      return null
    }
    let bytes = data.subarray(at, newline)
    if (this.pending) {
      bytes = Buffer.concat([this.pending, bytes])
      this.pending = null
    }
    if (bytes[bytes.byteLength - 1] === 0x0d) bytes = bytes.subarray(0, bytes.byteLength - 1)
    return { bytes, next: newline + 1 }
  }

  private emit(ex: Exchange, pieces: Uint8Array[]) {
    const c = ex.controller
    if (!c || pieces.length === 0) return
    // No copy for one piece: Bun hands every data event a fresh buffer (the multi-packet tests would catch a change).
    const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces)
    if (bytes.byteLength === 0) return
    c.enqueue(bytes)
    if ((c.desiredSize ?? 1) <= 0) this.socket?.pause()
  }

  private answer(ex: Exchange, res: Response) {
    ex.answered = true
    ex.resolve(res)
  }

  /** The response is complete: close the reader's stream and give the connection back (or drop it). */
  private complete(extraBytes = 0) {
    const ex = this.exchange!
    try {
      ex.controller?.close()
    } catch {}
    this.finish(ex)
    this.socket?.resume()
    // Bytes beyond the response mean a confused server; never reuse such a connection.
    if (!this.keepAlive || extraBytes > 0 || this.unsent) this.destroy()
    else this.pool.release(this)
  }

  /** Detaches the exchange (and its abort listener) from this connection. */
  private finish(ex: Exchange) {
    detach(ex)
    if (this.exchange === ex) this.exchange = null
  }

  /** The connection failed or closed: the exchange on it fails, or is retried when the connection was merely stale. */
  fail(error: Error) {
    const ex = this.exchange
    this.exchange = null // before destroy(): closing the socket calls back into fail()
    this.destroy()
    if (!ex) return
    if (this.framing?.kind === 'close' && ex.answered) {
      // a close-delimited body ends with the connection
      this.finish(ex)
      try {
        ex.controller?.close()
      } catch {}
      return
    }
    if (this.reused && ex.received === 0 && !ex.retried && !ex.signal?.aborted && Date.now() - ex.sentAt < STALE_RETRY_WITHIN_MS) {
      // A kept-alive connection the server had closed meanwhile: it read nothing of the request.
      ex.retried = true
      ex.conn = null
      this.pool.dispatch(ex)
      return
    }
    failExchange(ex, error)
  }

  abort(ex: Exchange) {
    if (this.exchange !== ex) return
    this.exchange = null
    this.destroy()
    failExchange(ex, ex.signal!.reason)
  }

  destroy() {
    if (this.closed) return
    this.closed = true
    this.unsent = null
    this.pool.forget(this)
    this.socket?.terminate()
  }
}

/** The size in a chunk-size line ("1a2", maybe followed by ";ext"). */
function chunkSize(line: Uint8Array): number {
  let size = 0
  let i = 0
  for (; i < line.byteLength; i++) {
    const b = line[i]!
    const digit = b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x61 && b <= 0x66 ? b - 0x57 : b >= 0x41 && b <= 0x46 ? b - 0x37 : -1
    if (digit < 0) break
    size = size * 16 + digit
  }
  if (i === 0 || i > 12) throw new Error('malformed chunk size from the upstream')
  return size
}

type Head = { status: number; statusText: string; headers: Headers; keepAlive: boolean; keepAliveSeconds: number | null; chunked: boolean; length: number | null }

function parseHead(head: string): Head {
  const lines = head.split('\r\n')
  const m = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(lines[0]!)
  if (!m) throw new Error(`not an HTTP/1.x response from the upstream: ${JSON.stringify(lines[0]!.slice(0, 80))}`)
  const headers = new Headers()
  let connection = ''
  let chunked = false
  let length: number | null = null
  let keepAliveSeconds: number | null = null
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    const colon = line.indexOf(':')
    if (colon <= 0) throw new Error('malformed header line from the upstream')
    const name = line.slice(0, colon).trim()
    const value = line.slice(colon + 1).trim()
    headers.append(name, value)
    const lower = name.toLowerCase()
    if (lower === 'connection') connection += `${value.toLowerCase()},`
    else if (lower === 'keep-alive') {
      const timeout = /timeout=(\d+)/i.exec(value)
      if (timeout) keepAliveSeconds = Number(timeout[1])
    } else if (lower === 'transfer-encoding') chunked = value.toLowerCase().split(',').at(-1)!.trim() === 'chunked'
    else if (lower === 'content-length') {
      const n = Number(value)
      if (!/^\d+$/.test(value) || (length !== null && length !== n)) throw new Error('malformed Content-Length from the upstream')
      length = n
    }
  }
  const http10 = m[1] === '0'
  const keepAlive = http10 ? connection.includes('keep-alive') : !connection.split(',').some((t) => t.trim() === 'close')
  return { status: Number(m[2]), statusText: m[3] ?? '', headers, keepAlive, keepAliveSeconds, chunked, length }
}

function framingOf(head: Head, requestHead: string): Framing {
  if (requestHead.startsWith('HEAD ') || head.status === 204 || head.status === 304) return { kind: 'none' }
  if (head.chunked) return { kind: 'chunked', step: 'size', left: 0 }
  if (head.length !== null) return head.length === 0 ? { kind: 'none' } : { kind: 'length', left: head.length }
  return { kind: 'close' }
}

/** The kept-alive connections of one client, by origin. */
class Pool {
  private readonly idle = new Map<string, Connection[]>()
  private readonly handlers: SocketHandler<Connection>
  private readonly sweeper: ReturnType<typeof setInterval>

  constructor(private readonly opts: Required<Omit<Http1Options, 'tls'>> & Pick<Http1Options, 'tls'>) {
    const gone = (socket: Socket<Connection>, error?: Error) => socket.data.fail(error ?? new Error('the upstream closed the connection'))
    this.handlers = {
      data: (socket, data) => socket.data.onData(data),
      drain: (socket) => socket.data.onDrain(),
      close: gone,
      end: (socket) => gone(socket),
      error: (socket, error) => gone(socket, error),
    }
    this.sweeper = setInterval(() => this.sweep(), 1000)
    ;(this.sweeper as unknown as { unref(): void }).unref()
  }

  dispatch(ex: Exchange) {
    const conn = this.take(ex.url.origin)
    if (conn) return this.start(conn, ex)
    this.connect(ex.url).then(
      (fresh) => this.start(fresh, ex),
      (e: Error) => failExchange(ex, ex.signal?.aborted ? ex.signal.reason : new Error(`cannot connect to the upstream: ${e.message}`)),
    )
  }

  private start(conn: Connection, ex: Exchange) {
    if (ex.answered) return this.release(conn) // aborted while the connection was being opened
    conn.send(ex)
  }

  private async connect(url: URL): Promise<Connection> {
    const conn = new Connection(url.origin, this)
    const https = url.protocol === 'https:'
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
    const isIp = /^[\d.]+$/.test(hostname) || hostname.includes(':')
    conn.socket = await Bun.connect<Connection>({
      hostname,
      port: Number(url.port) || (https ? 443 : 80),
      data: conn,
      socket: this.handlers,
      ...(https ? { tls: { rejectUnauthorized: true, ...(isIp ? {} : { serverName: hostname }), ...this.opts.tls } } : {}),
    })
    conn.socket.setNoDelay(true)
    return conn
  }

  private take(origin: string): Connection | undefined {
    const list = this.idle.get(origin)
    const now = Date.now()
    while (list?.length) {
      const conn = list.pop()!
      if (!conn.closed && now - conn.idleSince < Math.min(this.opts.idleMs, conn.idleLimitMs)) {
        conn.reused = true
        return conn
      }
      conn.destroy()
    }
    return undefined
  }

  release(conn: Connection) {
    if (conn.closed) return
    let list = this.idle.get(conn.origin)
    if (!list) this.idle.set(conn.origin, (list = []))
    if (list.length >= this.opts.maxIdlePerOrigin) return conn.destroy()
    conn.idleSince = Date.now()
    conn.socket!.unref() // an idle connection never keeps the process alive
    list.push(conn)
  }

  forget(conn: Connection) {
    const list = this.idle.get(conn.origin)
    const at = list?.indexOf(conn) ?? -1
    if (at >= 0) list!.splice(at, 1)
  }

  private sweep() {
    const now = Date.now()
    for (const list of this.idle.values()) for (const conn of [...list]) if (now - conn.idleSince >= Math.min(this.opts.idleMs, conn.idleLimitMs)) conn.destroy()
  }

  close() {
    clearInterval(this.sweeper)
    for (const list of this.idle.values()) for (const conn of [...list]) conn.destroy()
  }
}

function requestHead(url: URL, method: string, headers: HeadersInit | undefined, bodyBytes: number | null): string {
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`
  let userAgent = false
  const add = (name: string, value: string) => {
    const lower = name.toLowerCase()
    if (lower === 'host' || lower === 'content-length' || lower === 'connection' || lower === 'transfer-encoding') return // ours to set
    if (lower === 'user-agent') userAgent = true
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new TypeError(`invalid header ${name}`)
    head += `${name}: ${value}\r\n`
  }
  if (headers instanceof Headers || Array.isArray(headers)) for (const [k, v] of headers as Iterable<[string, string]>) add(k, v)
  else if (headers) for (const k in headers) add(k, (headers as Record<string, string>)[k]!)
  if (!userAgent) head += 'user-agent: ai-gateway\r\n'
  if (bodyBytes !== null) head += `content-length: ${bodyBytes}\r\n`
  return `${head}\r\n`
}

/** The request body as this client sends it: text, bytes or none; undefined for a body only fetch can send (a stream, a form). */
function sendable(body: RequestInit['body']): string | Uint8Array | null | undefined {
  if (body == null) return null
  if (typeof body === 'string' || body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  return undefined
}

/**
 * A fetch-shaped function speaking HTTP/1.1 over kept-alive Bun sockets. It accepts what the
 * upstream client sends (string or byte bodies); callers needing more should use fetch.
 */
export function createHttp1Fetch(options: Http1Options = {}): FetchLike & { close(): void } {
  const pool = new Pool({ idleMs: options.idleMs ?? 30_000, maxIdlePerOrigin: options.maxIdlePerOrigin ?? 256, tls: options.tls })
  const http1 = (input: string, init: RequestInit = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input)
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`unsupported protocol ${url.protocol}`)
      const signal = init.signal ?? undefined
      if (signal?.aborted) throw signal.reason
      const method = (init.method ?? 'GET').toUpperCase()
      const body = sendable(init.body)
      if (body === undefined) throw new TypeError('this client sends string or byte bodies only')
      const bodyBytes =
        body === null ? (method === 'POST' || method === 'PUT' || method === 'PATCH' ? 0 : null) : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength
      const ex: Exchange = {
        url,
        head: requestHead(url, method, init.headers, bodyBytes),
        body,
        signal,
        resolve,
        reject,
        answered: false,
        received: 0,
        retried: false,
        conn: null,
        sentAt: 0,
        controller: null,
        onAbort: null,
      }
      if (signal) {
        // On a connection, an abort closes it; while one is being opened, it just rejects (the new connection is then pooled).
        ex.onAbort = () => (ex.conn ? ex.conn.abort(ex) : failExchange(ex, signal.reason))
        signal.addEventListener('abort', ex.onAbort, { once: true })
      }
      pool.dispatch(ex)
    })
  return Object.assign(http1, { close: () => pool.close() })
}

/** Whether the environment routes requests to this URL through a proxy (which only fetch supports). */
export function proxiedByEnv(url: string, env: Record<string, string | undefined> = PROCESS.proxy): boolean {
  const { protocol, hostname } = new URL(url)
  const proxy = protocol === 'https:' ? (env.HTTPS_PROXY ?? env.https_proxy) : (env.HTTP_PROXY ?? env.http_proxy)
  if (!proxy && !(env.ALL_PROXY ?? env.all_proxy)) return false
  const noProxy = (env.NO_PROXY ?? env.no_proxy ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)
  const host = hostname.toLowerCase()
  return !noProxy.some((p) => p === '*' || host === p.replace(/^\./, '') || host.endsWith(p.startsWith('.') ? p : `.${p}`))
}

/** The client for `baseUrl`: HTTP/1.1 on event-loop sockets, or fetch when a proxy is configured for it. */
export function http1FetchOrFetch(baseUrl: string, options?: Http1Options): FetchLike {
  // A CA of the upstream's own goes to fetch's requests too (its GETs, or all of them through a proxy).
  const tls = options?.tls
  const viaFetch: FetchLike = tls ? (url, init) => fetch(url, { ...init, tls } as RequestInit) : (url, init) => fetch(url, init)
  if (proxiedByEnv(baseUrl)) return viaFetch
  const http1 = createHttp1Fetch(options)
  return (url, init) => (sendable(init?.body) === undefined ? viaFetch(url, init) : http1(url, init))
}
