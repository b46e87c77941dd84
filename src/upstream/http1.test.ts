// The HTTP/1.1 client against real sockets: a raw TCP server (Bun.listen) that writes exactly the
// bytes each test wants, split into packets where it matters, and counts connections.
import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Socket } from 'bun'
import { createHttp1Fetch, proxiedByEnv } from './http1'

type Req = { method: string; path: string; headers: Record<string, string>; body: Buffer }
type Conn = { buf: Buffer; id: number }
type Reply = (req: Req, socket: Socket<Conn>) => void | Promise<void>

/** A raw HTTP/1.1 server: parses requests (Content-Length bodies) and lets `reply` write whatever bytes it likes. */
function rawServer(reply: Reply, tls?: { key: string; cert: string }) {
  const stats = { connections: 0, requests: [] as Array<Req & { conn: number }>, closed: 0 }
  const server = Bun.listen<Conn>({
    hostname: '127.0.0.1',
    port: 0,
    ...(tls ? { tls } : {}),
    socket: {
      open(s) {
        s.data = { buf: Buffer.alloc(0), id: ++stats.connections }
      },
      close() {
        stats.closed++
      },
      async data(s, chunk) {
        s.data.buf = Buffer.concat([s.data.buf, chunk])
        for (;;) {
          const end = s.data.buf.indexOf('\r\n\r\n')
          if (end < 0) return
          const lines = s.data.buf.subarray(0, end).toString('latin1').split('\r\n')
          const [method, path] = lines[0]!.split(' ')
          const headers: Record<string, string> = {}
          for (const l of lines.slice(1)) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim()
          const length = Number(headers['content-length'] ?? 0)
          if (s.data.buf.byteLength < end + 4 + length) return
          const req = { method: method!, path: path!, headers, body: s.data.buf.subarray(end + 4, end + 4 + length) }
          s.data.buf = s.data.buf.subarray(end + 4 + length)
          stats.requests.push({ ...req, conn: s.data.id })
          await reply(req, s)
        }
      },
    },
  })
  return { url: `${tls ? 'https' : 'http'}://${tls ? 'localhost' : '127.0.0.1'}:${server.port}`, stats, stop: () => server.stop(true) }
}

const ok = (body: string, extra = '') => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`
const chunked = (parts: string[], trailer = '') =>
  `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n${parts.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('')}0\r\n${trailer}\r\n`

/** Writes `bytes` as separate packets cut at the given offsets (a pause between, so TCP does not merge them). */
async function writeSplit(s: Socket<Conn>, bytes: string, cuts: number[]) {
  const buf = Buffer.from(bytes)
  let from = 0
  for (const cut of [...cuts, buf.byteLength]) {
    s.write(buf.subarray(from, cut))
    from = cut
    await Bun.sleep(3)
  }
}

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})
function client(opts?: Parameters<typeof createHttp1Fetch>[0]) {
  const c = createHttp1Fetch(opts)
  cleanups.push(c.close)
  return c
}
function server(reply: Reply, tls?: { key: string; cert: string }) {
  const s = rawServer(reply, tls)
  cleanups.push(s.stop)
  return s
}

describe('http1 client', () => {
  test('sends method, path, query, headers and body; reuses one connection for sequential requests', async () => {
    const srv = server((req, s) => void s.write(ok(JSON.stringify({ echo: req.body.toString(), path: req.path }))))
    const fetch1 = client()
    for (let i = 0; i < 5; i++) {
      const res = await fetch1(`${srv.url}/api/v1/chat?i=${i}`, {
        method: 'POST',
        headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
        body: `{"n":${i},"text":"привет"}`,
      })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(await res.json()).toEqual({ echo: `{"n":${i},"text":"привет"}`, path: `/api/v1/chat?i=${i}` })
    }
    expect(srv.stats.connections).toBe(1)
    const first = srv.stats.requests[0]!
    expect(first.method).toBe('POST')
    expect(first.headers.authorization).toBe('Bearer k')
    expect(first.headers.host).toBe(new URL(srv.url).host)
    expect(Number(first.headers['content-length'])).toBe(Buffer.byteLength('{"n":0,"text":"привет"}'))
  })

  test('concurrent requests each get their own connection and the right answer', async () => {
    const srv = server(async (req, s) => {
      await Bun.sleep(Number(req.path.slice(1)) % 7)
      s.write(ok(req.path))
    })
    const fetch1 = client()
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => fetch1(`${srv.url}/${i}`).then((r) => r.text())))
    expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => `/${i}`))
    expect(srv.stats.connections).toBe(20)
    // and afterwards they are reused, not reopened
    await Promise.all(Array.from({ length: 20 }, (_, i) => fetch1(`${srv.url}/${i}`).then((r) => r.text())))
    expect(srv.stats.connections).toBe(20)
  })

  test('a chunked body split at every byte comes out whole, as the events were sent', async () => {
    const events = ['data: {"a":1}\n\n', 'data: {"b":"привет"}\n\n', ': keep-alive\n\n', 'data: [DONE]\n\n']
    const raw = chunked(events, 'x-trailer: 1\r\n')
    const headEnd = raw.indexOf('\r\n\r\n') + 4
    let cut = headEnd - 3 // start inside the head, then walk every offset of the body
    const srv = server(async (_req, s) => {
      const at = cut++
      await writeSplit(s, raw, [at])
    })
    const fetch1 = client()
    for (; cut < Buffer.byteLength(raw); ) {
      const res = await fetch1(srv.url)
      expect(await res.text()).toBe(events.join(''))
    }
    expect(srv.stats.connections).toBe(1) // the trailer and final CRLF were consumed: the connection stayed usable
  })

  test('a streamed body is readable before it ends', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const srv = server(async (_req, s) => {
      s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n')
      await gate
      s.write('4\r\nlast\r\n0\r\n\r\n')
    })
    const res = await client()(srv.url)
    const reader = res.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first')
    release()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('last')
    expect((await reader.read()).done).toBe(true)
  })

  test('Content-Length bodies across packets, 100 Continue, 204, and a body ended by the close', async () => {
    const srv = server(async (req, s) => {
      if (req.path === '/split') return writeSplit(s, ok(`{"long":"${'x'.repeat(5000)}"}`), [20, 60, 200, 3000])
      if (req.path === '/continue') return void s.write(`HTTP/1.1 100 Continue\r\n\r\n${ok('"after continue"')}`)
      if (req.path === '/empty') return void s.write('HTTP/1.1 204 No Content\r\n\r\n')
      await writeSplit(s, 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the ', [50])
      s.end('close')
    })
    const fetch1 = client()
    expect(((await (await fetch1(`${srv.url}/split`)).json()) as { long: string }).long).toHaveLength(5000)
    expect(await (await fetch1(`${srv.url}/continue`)).json()).toBe('after continue')
    const empty = await fetch1(`${srv.url}/empty`)
    expect(empty.status).toBe(204)
    expect(await empty.text()).toBe('')
    expect(await (await fetch1(`${srv.url}/close`)).text()).toBe('until the close')
    expect(srv.stats.connections).toBe(1) // one kept-alive connection so far…
    expect(await (await fetch1(`${srv.url}/empty`)).text()).toBe('')
    expect(srv.stats.connections).toBe(2) // …which the close-delimited body used up
  })

  test('a large request body is sent in full (partial writes wait for drain), a large response read in full', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024, 'абв') // multi-byte text: byte counts must not be character counts
    const srv = server((req, s) => {
      const digest = new Bun.CryptoHasher('sha256').update(req.body).digest('hex')
      const reply = Buffer.from(ok(JSON.stringify({ digest, bytes: req.body.byteLength, pad: 'я'.repeat(2_000_000) })))
      // the reply is bigger than one write takes: write the rest on drain
      let at = s.write(reply)
      const more = () => {
        while (at < reply.byteLength) {
          const n = s.write(reply.subarray(at))
          if (n <= 0) return setTimeout(more, 1)
          at += n
        }
      }
      more()
    })
    const res = await client()(srv.url, { method: 'POST', body: big.toString() })
    const json = (await res.json()) as { digest: string; bytes: number; pad: string }
    expect(json.bytes).toBe(big.byteLength)
    expect(json.digest).toBe(new Bun.CryptoHasher('sha256').update(big).digest('hex'))
    expect(json.pad).toBe('я'.repeat(2_000_000))
  })

  test('a connection: close answer is not reused; a kept-alive connection the server dropped is retried once on a new one', async () => {
    let mode: 'close-header' | 'drop-after' = 'close-header'
    const srv = server((_req, s) => {
      if (mode === 'close-header') s.write(ok('"bye"', 'connection: close\r\n'))
      else {
        s.write(ok('"ok"'))
        setTimeout(() => s.end(), 5) // closes the idle connection without saying so
      }
    })
    const fetch1 = client()
    await (await fetch1(srv.url)).text()
    await (await fetch1(srv.url)).text()
    expect(srv.stats.connections).toBe(2)
    mode = 'drop-after'
    await (await fetch1(srv.url)).text()
    await Bun.sleep(30) // the server has closed it by now; the client may not have noticed
    expect(await (await fetch1(srv.url, { method: 'POST', body: '{"once":true}' })).json()).toBe('ok')
    expect(srv.stats.requests.filter((r) => r.body.toString() === '{"once":true}')).toHaveLength(1)
  })

  test('idle connections expire: after idleMs, or sooner when the server announces Keep-Alive: timeout', async () => {
    let hint = ''
    const srv = server((_req, s) => void s.write(ok('"ok"', hint)))
    const fetch1 = client({ idleMs: 150 })
    await (await fetch1(srv.url)).text()
    await (await fetch1(srv.url)).text()
    expect(srv.stats.connections).toBe(1)
    await Bun.sleep(200)
    await (await fetch1(srv.url)).text()
    expect(srv.stats.connections).toBe(2)
    hint = 'keep-alive: timeout=1\r\n' // one second, less a second of margin: never reuse
    await (await fetch1(srv.url)).text()
    await (await fetch1(srv.url)).text()
    expect(srv.stats.connections).toBe(3)
  })

  test('abort before the answer rejects with the reason and closes the connection; abort mid-body errors the stream', async () => {
    const srv = server((req, s) => {
      if (req.path === '/half') s.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n')
      // '/never' gets no answer at all
    })
    const fetch1 = client()
    const ac = new AbortController()
    const pending = fetch1(`${srv.url}/never`, { signal: ac.signal })
    await Bun.sleep(20)
    ac.abort(new Error('stop it'))
    await expect(pending).rejects.toThrow('stop it')
    await Bun.sleep(20)
    expect(srv.stats.closed).toBe(1)

    const ac2 = new AbortController()
    const res = await fetch1(`${srv.url}/half`, { signal: ac2.signal })
    const reader = res.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('hello')
    ac2.abort(new Error('enough'))
    await expect(reader.read()).rejects.toThrow('enough')
    await Bun.sleep(20)
    expect(srv.stats.closed).toBe(2)

    await expect(fetch1(`${srv.url}/never`, { signal: AbortSignal.abort(new Error('already')) })).rejects.toThrow('already')
  })

  test('a connection dying mid-body errors the stream; garbage, refused connections and oversized heads reject', async () => {
    const srv = server(async (req, s) => {
      if (req.path === '/cut') {
        s.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly this')
        await Bun.sleep(10)
        s.end()
      } else if (req.path === '/garbage') s.write('SSH-2.0-OpenSSH\r\n\r\n')
      else s.write(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(70 * 1024)}\r\n\r\n`)
    })
    const fetch1 = client()
    const cut = await fetch1(`${srv.url}/cut`)
    await expect(cut.text()).rejects.toThrow()
    await expect(fetch1(`${srv.url}/garbage`)).rejects.toThrow('not an HTTP/1.x response')
    await expect(fetch1(`${srv.url}/huge`)).rejects.toThrow('over 64 KB')
    const closed = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    const port = closed.port
    closed.stop(true)
    await expect(fetch1(`http://127.0.0.1:${port}/`)).rejects.toThrow('cannot connect to the upstream')
  })

  test('TLS: verifies the certificate (refused without our CA, accepted with it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'http1-tls-'))
    try {
      const gen = Bun.spawnSync(
        [
          'openssl',
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=DNS:localhost',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
        { stderr: 'pipe' },
      )
      expect(gen.exitCode).toBe(0)
      const key = readFileSync(join(dir, 'key.pem'), 'utf8')
      const cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
      const srv = server((_req, s) => void s.write(ok('"secure"')), { key, cert })
      await expect(client()(srv.url)).rejects.toThrow()
      expect(srv.stats.requests).toHaveLength(0) // refused at the handshake: nothing was sent
      const trusted = client({ tls: { ca: cert } })
      expect(await (await trusted(srv.url)).json()).toBe('secure')
      expect(await (await trusted(srv.url)).json()).toBe('secure')
      expect(srv.stats.requests).toHaveLength(2)
      expect(srv.stats.requests[0]!.conn).toBe(srv.stats.requests[1]!.conn) // kept alive
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('proxy settings in the environment send the request to fetch instead', () => {
    expect(proxiedByEnv('https://openrouter.ai/api/v1', {})).toBe(false)
    expect(proxiedByEnv('https://openrouter.ai/api/v1', { HTTPS_PROXY: 'http://proxy:3128' })).toBe(true)
    expect(proxiedByEnv('http://127.0.0.1:9/api/v1', { HTTPS_PROXY: 'http://proxy:3128' })).toBe(false)
    expect(proxiedByEnv('https://openrouter.ai/api/v1', { https_proxy: 'http://proxy:3128', NO_PROXY: '.openrouter.ai' })).toBe(false)
    expect(proxiedByEnv('https://openrouter.ai/api/v1', { ALL_PROXY: 'socks5://proxy', NO_PROXY: 'example.com' })).toBe(true)
  })
})
