// How much of the direct throughput does a bare pass-through proxy keep at concurrency 64 on this
// machine? It is the ceiling for any gateway process in bench/gateway.ts's setup (load generator and
// fake upstream in this process, the proxy in its own), so the gateway's figures can be read against it.
//
//   bun bench/proxy-floor.ts            # plain and streamed, 4 alternating rounds of 3000 requests per side

import { UPSTREAM_KEY } from '../src/test-support/gateway'
import { startFakeUpstream } from '../src/upstream/demo'
import { startBareProxy } from './bare-proxy'

const CONCURRENCY = 64
const ROUNDS = 4
const PER_ROUND = 3000

const upstream = await startFakeUpstream({ tokenDelayMs: 0, faults: false, apiKey: UPSTREAM_KEY })
const proxy = await startBareProxy(upstream.url)

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
  const direct = `${upstream.url}/chat/completions`
  const proxied = `${proxy.url}/chat/completions`
  console.log(`proxy floor: Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs, concurrency ${CONCURRENCY}, ${ROUNDS} × ${PER_ROUND} requests per side\n`)
  for (const stream of [false, true]) {
    const body = JSON.stringify({ model: 'openai/gpt-3.5-turbo', messages: [{ role: 'user', content: 'Привет' }], max_tokens: 16, stream })
    await throughput(direct, body, 500) // warm-up
    await throughput(proxied, body, 500)
    let d = 0
    let p = 0
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order so drift lands on both sides.
      if (round % 2 === 0) {
        d += await throughput(direct, body, PER_ROUND)
        p += await throughput(proxied, body, PER_ROUND)
      } else {
        p += await throughput(proxied, body, PER_ROUND)
        d += await throughput(direct, body, PER_ROUND)
      }
    }
    console.log(
      `${stream ? 'stream' : 'plain '} c${CONCURRENCY}: direct ${(d / ROUNDS).toFixed(0)} req/s, bare proxy ${(p / ROUNDS).toFixed(0)} req/s, ratio ${(p / d).toFixed(2)}`,
    )
  }
} finally {
  await proxy.stop()
  await upstream.stop()
}
