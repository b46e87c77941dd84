// A pass-through proxy with nothing else in it: no auth, no validation, no billing. Started by
// bench/proxy-floor.ts to show what any extra HTTP hop costs on this machine.
//   UPSTREAM=http://127.0.0.1:PORT/api/v1 PORT=N bun bench/bare-proxy.ts
const upstream = process.env.UPSTREAM
const port = Number(process.env.PORT)
if (!upstream || !Number.isInteger(port)) {
  console.error('usage: UPSTREAM=<base url> PORT=<port> bun bench/bare-proxy.ts')
  process.exit(2)
}

Bun.serve({
  hostname: '127.0.0.1',
  port,
  async fetch(req) {
    const res = await fetch(`${upstream}/chat/completions`, {
      method: 'POST',
      body: await req.text(),
      headers: { authorization: req.headers.get('authorization') ?? '', 'content-type': 'application/json' },
    })
    return new Response(res.body, { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } })
  },
})
console.log('ready')
