// A pass-through proxy with nothing else in it: no auth, no validation, no billing. It forwards
// each POST to the upstream under the request's own path (`/chat/completions`, `/responses`,
// `/messages`, …) with the same body, authorization and content type, and passes the status, the
// content type and the body stream back. What any extra HTTP hop costs on this machine: started in
// its own process, where the gateway runs, by bench/proxy-floor.ts and bench/gateway.ts (issue 34).
// With FRAMEWORK=elysia the same pass-through is one Elysia route whose JSON body is validated (a
// model, messages, anything else allowed) and serialised again, as any gateway must to read it: what
// the framework alone costs beside the bare hop (bench/proxy-floor.ts prints both).
//   UPSTREAM=http://127.0.0.1:PORT/api/v1 [PORT=N] [FRAMEWORK=elysia] bun bench/bare-proxy.ts   # prints "ready <port>"
import type { Subprocess } from 'bun'
import { Elysia, t } from 'elysia'

/** The pass-through itself: the request's path, body, authorization and content type; the answer's status, type and stream. */
async function pass(upstream: string, req: Request, body: string): Promise<Response> {
  const url = new URL(req.url)
  const res = await fetch(upstream + url.pathname + url.search, {
    method: req.method,
    body,
    headers: { authorization: req.headers.get('authorization') ?? '', 'content-type': req.headers.get('content-type') ?? 'application/json' },
  })
  return new Response(res.body, { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } })
}

const ChatBody = t.Object({ model: t.String(), messages: t.Array(t.Object({ role: t.String() }, { additionalProperties: true })) }, { additionalProperties: true })

if (import.meta.main) {
  const upstream = process.env.UPSTREAM
  const port = Number(process.env.PORT ?? 0) // 0: any free port, printed with "ready"
  if (!upstream || !Number.isInteger(port)) {
    console.error('usage: UPSTREAM=<base url> [PORT=<port>] [FRAMEWORK=elysia] bun bench/bare-proxy.ts')
    process.exit(2)
  }
  if (process.env.FRAMEWORK === 'elysia') {
    const app = new Elysia().post('/*', ({ request, body }) => pass(upstream, request, JSON.stringify(body)), { body: ChatBody }).listen({ hostname: '127.0.0.1', port })
    console.log(`ready ${app.server!.port}`)
  } else {
    const server = Bun.serve({ hostname: '127.0.0.1', port, fetch: async (req) => pass(upstream, req, await req.text()) })
    console.log(`ready ${server.port}`)
  }
}

export type BareProxy = { url: string; pid: number; stop: () => Promise<void> }

/** Starts this proxy as its own process in front of `upstream` (a base URL such as the fake upstream's); `elysia`: as an Elysia route. */
export async function startBareProxy(upstream: string, framework: 'none' | 'elysia' = 'none'): Promise<BareProxy> {
  const proc: Subprocess<'ignore', 'pipe', 'inherit'> = Bun.spawn(['bun', import.meta.path], {
    env: { ...process.env, UPSTREAM: upstream, PORT: '0', FRAMEWORK: framework },
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
