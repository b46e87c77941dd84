// A pass-through proxy with nothing else in it: no auth, no validation, no billing. It forwards
// each POST to the upstream under the request's own path (`/chat/completions`, `/responses`,
// `/messages`, …) with the same body, authorization and content type, and passes the status, the
// content type and the body stream back. What any extra HTTP hop costs on this machine: started in
// its own process, where the gateway runs, by bench/proxy-floor.ts and bench/gateway.ts (issue 34).
//   UPSTREAM=http://127.0.0.1:PORT/api/v1 [PORT=N] bun bench/bare-proxy.ts   # prints "ready <port>"
import type { Subprocess } from 'bun'

if (import.meta.main) {
  const upstream = process.env.UPSTREAM
  const port = Number(process.env.PORT ?? 0) // 0: any free port, printed with "ready"
  if (!upstream || !Number.isInteger(port)) {
    console.error('usage: UPSTREAM=<base url> [PORT=<port>] bun bench/bare-proxy.ts')
    process.exit(2)
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    async fetch(req) {
      const url = new URL(req.url)
      const res = await fetch(upstream + url.pathname + url.search, {
        method: req.method,
        body: await req.text(),
        headers: { authorization: req.headers.get('authorization') ?? '', 'content-type': req.headers.get('content-type') ?? 'application/json' },
      })
      return new Response(res.body, { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } })
    },
  })
  console.log(`ready ${server.port}`)
}

export type BareProxy = { url: string; pid: number; stop: () => Promise<void> }

/** Starts this proxy as its own process in front of `upstream` (a base URL such as the fake upstream's). */
export async function startBareProxy(upstream: string): Promise<BareProxy> {
  const proc: Subprocess<'ignore', 'pipe', 'inherit'> = Bun.spawn(['bun', import.meta.path], {
    env: { ...process.env, UPSTREAM: upstream, PORT: '0' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const first = await proc.stdout.getReader().read()
  const port = new TextDecoder().decode(first.value).match(/ready (\d+)/)?.[1]
  if (!port) {
    proc.kill()
    throw new Error('the bare proxy did not start')
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: proc.pid,
    async stop() {
      proc.kill()
      await proc.exited
    },
  }
}
