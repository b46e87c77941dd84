// How much of the direct throughput does a bare pass-through proxy keep at concurrency 64 on this
// machine? It is the ceiling for any gateway process in bench/gateway.ts's setup (load generator and
// fake upstream in this process, the proxy in its own), so the gateway's figures can be read against it.
// Beside it the same proxy as one Elysia route with a validated body (bare-proxy.ts FRAMEWORK=elysia):
// what the framework alone takes of that ceiling. CPU per request of each proxy process from /proc.
//
//   bun bench/proxy-floor.ts            # plain and streamed, 4 rotating rounds of 3000 requests per side

import { UPSTREAM_KEY } from '../src/test-support/gateway'
import { startFakeUpstream } from '../src/upstream/demo'
import { startBareProxy } from './bare-proxy'

const CONCURRENCY = 64
const ROUNDS = 4
const PER_ROUND = 3000

const upstream = await startFakeUpstream({ tokenDelayMs: 0, faults: false, apiKey: UPSTREAM_KEY })
const proxy = await startBareProxy(upstream.url)
const framed = await startBareProxy(upstream.url, 'elysia')

/** CPU seconds a process has used so far (utime + stime from /proc, in clock ticks of 10 ms). */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await Bun.file(`/proc/${pid}/stat`).text()).split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** Completed requests per second with CONCURRENCY workers sending back to back. */
async function throughput(url: string, body: string, count: number): Promise<number> {
  let issued = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (issued++ < count) {
        const res = await fetch(url, { method: 'POST', body, headers: { authorization: `Bearer ${UPSTREAM_KEY}`, 'content-type': 'application/json' } })
        const text = await res.text()
        if (res.status !== 200 || text.includes('"error"')) throw new Error(`request failed: ${res.status} ${text.slice(0, 200)}`)
      }
    }),
  )
  return count / ((performance.now() - started) / 1000)
}

try {
  const sides = [
    { name: 'direct', url: `${upstream.url}/chat/completions`, pid: 0 },
    { name: 'bare proxy', url: `${proxy.url}/chat/completions`, pid: proxy.pid },
    { name: 'Elysia proxy', url: `${framed.url}/chat/completions`, pid: framed.pid },
  ]
  console.log(`proxy floor: Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs, concurrency ${CONCURRENCY}, ${ROUNDS} × ${PER_ROUND} requests per side\n`)
  for (const stream of [false, true]) {
    const body = JSON.stringify({ model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: 'Привет' }], max_tokens: 16, stream })
    for (const side of sides) await throughput(side.url, body, 500) // warm-up
    const rate = sides.map(() => 0)
    const cpu = sides.map(() => 0)
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order so drift lands on every side.
      for (let k = 0; k < sides.length; k++) {
        const i = (round + k) % sides.length
        const side = sides[i]!
        const before = side.pid ? await cpuSeconds(side.pid) : 0
        rate[i]! += await throughput(side.url, body, PER_ROUND)
        if (side.pid) cpu[i]! += (await cpuSeconds(side.pid)) - before
      }
    }
    const [d, p, e] = rate.map((r) => r / ROUNDS) as [number, number, number]
    const perRequest = (i: number) => ((cpu[i]! * 1000) / (ROUNDS * PER_ROUND)).toFixed(3)
    console.log(
      `${stream ? 'stream' : 'plain '} c${CONCURRENCY}: direct ${d.toFixed(0)} req/s, bare proxy ${p.toFixed(0)} (${(p / d).toFixed(2)} of direct, ${perRequest(1)} ms CPU/req), Elysia proxy ${e.toFixed(0)} (${(e / p).toFixed(2)} of the bare proxy, ${perRequest(2)} ms CPU/req)`,
    )
  }
} finally {
  await framed.stop()
  await proxy.stop()
  await upstream.stop()
}
