// The Responses API's WebSocket mode against HTTP (issue 28): a 20-turn agent tool loop on loopback
// with the fake upstream, four ways —
//   ws            one WebSocket, each turn `response.create` with previous_response_id and only the
//                 new item (the tool's output); the chain comes from the connection's memory, and each
//                 response is also stored (the default store: true)
//   ws-memory     the same with store: false: nothing written but the billing
//   http-chained  POST /v1/responses (stream) with previous_response_id and only the new item; the
//                 chain is read from the database (stored responses)
//   http-full     POST /v1/responses (stream), store: false, the whole history in `input` every turn
//                 (what Codex CLI and the AI SDK do with a stateless server)
// and two figures per way: the bytes the client sends per turn (counted on the wire by a TCP relay
// in front of the gateway: request lines, headers, WebSocket framing and handshake included), and the
// end-to-end time of the whole loop (direct to the gateway, loops of the four ways interleaved).
//
//   bun bench/responses-ws.ts              # 12 loops per way (≈ 30 s here)
//   bun bench/responses-ws.ts --loops 30
//
// The fake upstream answers at once (tokenDelayMs 0): the time is the gateway's and the protocol's,
// not a model's. Billing stays on (a hold, a settlement, a usage row per turn; a stored row per turn
// except in http-full). A measurement, not a test: the exit code is 0 whatever the figures.
import { createServer, type Socket, connect as tcpConnect } from 'node:net'
import { startGateway } from '../src/test-support/gateway'
import { LOOP_PROMPT, toolOutput, WEATHER } from '../src/test-support/tool-loop'

const TURNS = 20
const MODEL = 'openai/gpt-4o-mini'

function parseArgs(argv: string[]) {
  let loops = 12
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '--loops' || a.startsWith('--loops=')) {
      const n = Number(a.includes('=') ? a.slice(8) : argv[++i])
      if (!Number.isInteger(n) || n < 1 || n > 1000) {
        console.error('--loops takes an integer between 1 and 1000')
        process.exit(2)
      }
      loops = n
    } else {
      console.error(`unknown argument "${a}" (usage: bun bench/responses-ws.ts [--loops N])`)
      process.exit(2)
    }
  }
  return { loops }
}

type Json = Record<string, any>
type Way = 'ws' | 'ws-memory' | 'http-chained' | 'http-full'
const WAYS: Way[] = ['ws', 'ws-memory', 'http-chained', 'http-full']

/** The next input after a response: the tool's output for its call (undefined when it answered with text). */
function nextItems(response: Json, turn: number): Json[] | undefined {
  const call = (response.output as Json[]).find((i) => i.type === 'function_call')
  return call && [{ type: 'function_call_output', call_id: call.call_id, output: toolOutput(turn) }]
}

/** The final Response of an SSE body. */
async function completed(res: Response): Promise<Json> {
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`)
  const text = await res.text()
  const at = text.lastIndexOf('"type":"response.completed"')
  if (at < 0) throw new Error(`no response.completed in ${text.slice(-300)}`)
  const start = text.lastIndexOf('data: ', at) + 6
  return (JSON.parse(text.slice(start, text.indexOf('\n', start))) as Json).response
}

/** One 20-turn loop over HTTP; `full`: store: false and the whole history each turn. */
async function httpLoop(base: string, key: string, full: boolean) {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const history: Json[] = [{ role: 'user', content: LOOP_PROMPT(TURNS - 1) }]
  let input: Json[] = history.slice()
  let previous: string | undefined
  for (let turn = 1; turn <= TURNS; turn++) {
    const body = full
      ? { model: MODEL, input: history, tools: [WEATHER], stream: true, store: false }
      : { model: MODEL, input, tools: [WEATHER], stream: true, previous_response_id: previous }
    const response = await completed(await fetch(`${base}/v1/responses`, { method: 'POST', headers, body: JSON.stringify(body) }))
    previous = response.id
    const next = nextItems(response, turn)
    if (turn < TURNS && !next) throw new Error(`turn ${turn} answered with text`)
    if (!next) break
    history.push(...(response.output as Json[]), ...next)
    input = next
  }
}

/** One 20-turn loop over one WebSocket; `store`: false keeps the chain in the connection only. */
async function wsLoop(base: string, key: string, store: boolean) {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${key}` } } as unknown as string[])
  let resolveTurn: (r: Json) => void = () => {}
  let rejectTurn: (e: Error) => void = () => {}
  ws.onmessage = (e) => {
    const data = String(e.data)
    if (data.startsWith('{"type":"response.completed"')) resolveTurn((JSON.parse(data) as Json).response)
    else if (data.startsWith('{"type":"error"')) rejectTurn(new Error(data))
  }
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onerror = () => reject(new Error('WebSocket did not open'))
  })
  let input: Json[] | string = LOOP_PROMPT(TURNS - 1)
  let previous: string | undefined
  try {
    for (let turn = 1; turn <= TURNS; turn++) {
      const done = new Promise<Json>((resolve, reject) => {
        resolveTurn = resolve
        rejectTurn = reject
      })
      ws.send(JSON.stringify({ type: 'response.create', model: MODEL, input, tools: [WEATHER], previous_response_id: previous, ...(store ? {} : { store: false }) }))
      const response = await done
      previous = response.id
      const next = nextItems(response, turn)
      if (turn < TURNS && !next) throw new Error(`turn ${turn} answered with text`)
      if (!next) break
      input = next
    }
  } finally {
    ws.close()
  }
}

const run = (way: Way, base: string, key: string) => (way.startsWith('ws') ? wsLoop(base, key, way === 'ws') : httpLoop(base, key, way === 'http-full'))

/** A TCP relay in front of the gateway that counts what clients send through it. */
async function countingRelay(target: URL) {
  let sent = 0
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(target.port), target.hostname)
    sockets.add(client).add(upstream)
    client.on('data', (d) => {
      sent += d.length
      upstream.write(d)
    })
    upstream.on('data', (d) => client.write(d))
    const end = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on('close', end).on('error', end)
    upstream.on('close', end).on('error', end)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}`,
    take() {
      const n = sent
      sent = 0
      return n
    },
    close() {
      for (const s of sockets) s.destroy()
      server.close()
    },
  }
}

const loadavg = async () => (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const ms = (n: number) => `${n.toFixed(1)} ms`

async function main() {
  const { loops } = parseArgs(process.argv.slice(2))
  const gw = await startGateway({ WELCOME_BONUS_RUB: '1000000' }, { faults: false, tokenDelayMs: 0 })
  try {
    const c = await gw.customer()
    const loadBefore = await loadavg()

    // Bytes on the wire, one loop per way through the counting relay (fetch keeps one connection alive,
    // so HTTP pays its connection once, as the WebSocket pays its handshake once).
    const relay = await countingRelay(new URL(gw.url))
    const bytes = new Map<Way, number>()
    for (const way of WAYS) {
      relay.take()
      await run(way, relay.url, c.key)
      await Bun.sleep(50)
      bytes.set(way, relay.take())
    }
    relay.close()

    // Time: warm-up, then loops of the ways interleaved (rotated each round).
    for (const way of WAYS) await run(way, gw.url, c.key)
    const times = new Map<Way, number[]>(WAYS.map((w) => [w, []]))
    for (let i = 0; i < loops; i++) {
      const order = [...WAYS.slice(i % WAYS.length), ...WAYS.slice(0, i % WAYS.length)]
      for (const way of order) {
        const t = performance.now()
        await run(way, gw.url, c.key)
        times.get(way)!.push(performance.now() - t)
      }
    }
    const loadAfter = await loadavg()

    console.log(`\n${TURNS}-turn tool loop, ${loops} measured loops per way (load average before ${loadBefore}, after ${loadAfter})\n`)
    console.log('| way | client bytes per turn | bytes, whole loop | loop p50 | loop p90 | per turn (p50 / 20) |')
    console.log('|---|---:|---:|---:|---:|---:|')
    for (const way of WAYS) {
      const sorted = times.get(way)!.sort((a, b) => a - b)
      const b = bytes.get(way)!
      console.log(`| ${way} | ${Math.round(b / TURNS)} | ${b} | ${ms(pct(sorted, 50))} | ${ms(pct(sorted, 90))} | ${ms(pct(sorted, 50) / TURNS)} |`)
    }
    const books = await gw.books(c.user.id)
    console.log(`\nbooks: held ${books.held}, ledger sum = balance: ${books.ledgerSum === books.balance}, usage rows ${books.usage.length}`)
  } finally {
    await gw.stop()
  }
}

await main()
