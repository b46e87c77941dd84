// Chaos runs against the real server and fake routers, then an audit of every account's books:
//   balance = ledger sum; nothing held; no usage row twice; every charge = the reported cost × rate ×
//   markup of the router that answered; every answer the client saw completed has its one usage row
//   with that charge; nothing uncovered.
//
// `--scenario crash` (issue 16, the default): 20 % injected upstream faults (5xx, 429, timeouts,
// mid-stream breaks and errors, 200-with-error), client aborts, and one `kill -9` of the server
// half-way, then a restart on the same data.
// `--scenario failover` (issue 26): a second router configured; the primary fails 30 % of the
// requests it gets (502, 503 with Retry-After, 500, 429, a hang before the head, a drop mid-answer,
// taking turns) and is down altogether (connection refused) for the middle fifth of the run. Reports
// the success rate and the latency percentiles of the answers, and who answered.
// `--scenario continuity` (issue 35): UPSTREAMS_FILE adds GigaChat and an OpenAI-compatible aggregator
// billing in rubles (local fakes); the router syncs the catalogue and then refuses connections for
// the whole run. Models with a second route (the aggregator's, GigaChat's) keep answering; a model
// only the router serves fails fast once its breaker opens. The books check every charge against the
// route that answered: the router's cost × rate × markup, the aggregator's cost_rub × markup, GigaChat's
// tokens × the file's ruble prices × markup.
//
//   bun bench/chaos.ts                               # 10 000 requests (≈ 1 min here)
//   bun bench/chaos.ts --scenario failover           # 10 000 requests, the primary failing
//   bun bench/chaos.ts --scenario continuity         # 10 000 requests, the router unreachable throughout
//   bun bench/chaos.ts --requests 2000               # a shorter run
//   bun bench/chaos.ts --store pg --bonus 2000       # on a throwaway PostgreSQL, accounts well funded enough
//                                                    # to be served from reserves (money/reserves.ts, issue 25)
//
// Only loopback addresses are used; the run is bounded in requests and time and stops by itself.
// Exit code 0 when the books check passes, 1 when it does not (or the run could not be made).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ceilUnits, dec, mul } from '../src/lib/decimal'
import { closeReader, databaseReader } from '../src/test-support/db-reader'
import { expectedCharge, FALLBACK_KEY, TEST_RATE, UPSTREAM_KEY } from '../src/test-support/gateway'
import { startPostgres } from '../src/test-support/postgres'
import { registerUser, startServer, type TestServer } from '../src/test-support/server'
import { startFakeUpstream } from '../src/upstream/demo'
import { startFakeGigachat } from '../src/upstream/kinds/gigachat-fake'
import { startFakeAggregator } from '../src/upstream/kinds/openai-fake'

const args = process.argv.slice(2)
const REQUESTS = (() => {
  const i = args.findIndex((a) => a === '--requests' || a.startsWith('--requests='))
  if (i < 0) return 10_000
  const raw = args[i]!.includes('=') ? args[i]!.split('=')[1] : args[i + 1]
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 100 || n > 100_000) {
    console.error('--requests must be an integer between 100 and 100000')
    process.exit(2)
  }
  return n
})()
const SCENARIO = (() => {
  const i = args.findIndex((a) => a === '--scenario' || a.startsWith('--scenario='))
  const raw = i < 0 ? 'crash' : args[i]!.includes('=') ? args[i]!.split('=')[1] : args[i + 1]
  if (raw !== 'crash' && raw !== 'failover' && raw !== 'continuity') {
    console.error('--scenario must be crash, failover or continuity')
    process.exit(2)
  }
  return raw
})()
const FAILOVER = SCENARIO === 'failover'
const CONTINUITY = SCENARIO === 'continuity'
/** continuity: the models and who else serves them (the file's routes), and the GigaChat prices, ₽ per 1M tokens. */
const SHARED_MODEL = 'openai/gpt-4o-mini'
const GIGA_MODEL = 'sber/gigachat-2-max'
const ROUTER_ONLY_MODEL = 'openai/gpt-4'
const GIGA_PRICE = { prompt: '150', completion: '300' }
/** `--name value` or `--name=value` of the command line, or undefined. */
function option(name: string): string | undefined {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`))
  if (i < 0) return undefined
  return args[i]!.includes('=') ? args[i]!.split('=')[1] : args[i + 1]
}
const STORE = option('store') ?? 'sqlite'
if (STORE !== 'sqlite' && STORE !== 'pg') {
  console.error('--store must be sqlite or pg')
  process.exit(2)
}
const BONUS_OPTION = option('bonus') === undefined ? undefined : Number(option('bonus'))
if (BONUS_OPTION !== undefined && (!Number.isInteger(BONUS_OPTION) || BONUS_OPTION < 1 || BONUS_OPTION > 1_000_000)) {
  console.error('--bonus must be a whole number of rubles between 1 and 1000000')
  process.exit(2)
}
/**
 * The restarted process gives its predecessor's holds (and on PostgreSQL its reserves) back once their
 * lease lapsed: short, so that it lapses within the run (the default 30 s outlasted a fast machine's run).
 */
const LEASE_MS = 3000
const ACCOUNTS = 80
// crash: small, accounts run dry half-way and get 402s; failover: enough for every request, so the
// success rate is the routers' alone
const BONUS_RUB = BONUS_OPTION ?? (FAILOVER || CONTINUITY ? 500 : 5)
const CONCURRENCY = 48
const FAULT_SHARE = 0.2
const ABORT_SHARE = 0.05 // of streamed requests: the client leaves after the first chunk
const UPSTREAM_TIMEOUT_MS = 1500
const RUN_CAP_MS = 8 * 60_000
const FAULTS = ['http500', 'http502', 'http503', 'http429', 'timeout', 'error200', 'midstream', 'break'] as const
/** failover: the share of the primary's requests that fail, the faults taking turns, and when it is down altogether. */
const PRIMARY_FAILING = 0.3
const PRIMARY_FAULTS = ['http502', 'http503', 'http500', 'http429', 'timeout', 'break'] as const
const FAULT_TURN = 250 // requests per fault
const DOWN_FROM = 0.4
const DOWN_TO = 0.6
/** failover: a short cool-down, so the run sees the breaker open, probe and close more than once. */
const BREAKER_COOLDOWN_MS = 3000

/** A small deterministic PRNG (mulberry32), so two runs send the same mix. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const random = rng(20261123)
const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!

type Protocol = 'chat' | 'responses' | 'messages' | 'embeddings'
type Plan = { protocol: Protocol; stream: boolean; fault: string | null; abort: boolean; model: string; account: number }
type Seen = { plan: Plan; status: number | 'network' | 'aborted'; completedWithCost: number | null; upstreamId: string | null; ms: number }

function plan(): Plan {
  if (CONTINUITY) {
    // Chat only: the other kinds answer chat completions. Most requests have a second route.
    const m = random()
    const stream = random() < 0.5
    return {
      protocol: 'chat',
      stream,
      fault: null,
      abort: stream && random() < ABORT_SHARE,
      model: m < 0.45 ? SHARED_MODEL : m < 0.9 ? GIGA_MODEL : ROUTER_ONLY_MODEL,
      account: Math.floor(random() * ACCOUNTS),
    }
  }
  const r = random()
  const protocol: Protocol = r < 0.6 ? 'chat' : r < 0.75 ? 'responses' : r < 0.9 ? 'messages' : 'embeddings'
  const stream = protocol !== 'embeddings' && random() < 0.5
  // failover: the requests are clean; the primary router fails them on its own (outage()).
  const fault = !FAILOVER && random() < FAULT_SHARE ? pick(FAULTS) : null
  return {
    protocol,
    stream,
    fault: protocol === 'embeddings' && fault && !fault.startsWith('http') && fault !== 'timeout' ? 'http500' : fault,
    abort: stream && !fault && random() < ABORT_SHARE,
    model: protocol === 'embeddings' ? 'openai/text-embedding-3-small' : random() < 0.7 ? 'openai/gpt-4o-mini' : 'openai/gpt-4',
    account: Math.floor(random() * ACCOUNTS),
  }
}

function body(p: Plan): { path: string; json: Record<string, unknown> } {
  const text = `${p.fault ? `[[fault:${p.fault}]] ` : ''}Расскажи коротко о погоде`
  if (p.protocol === 'responses') return { path: '/v1/responses', json: { model: p.model, input: text, max_output_tokens: 40, stream: p.stream } }
  if (p.protocol === 'messages') return { path: '/v1/messages', json: { model: p.model, max_tokens: 40, messages: [{ role: 'user', content: text }], stream: p.stream } }
  if (p.protocol === 'embeddings') return { path: '/v1/embeddings', json: { model: p.model, input: [text, 'второй текст'] } }
  return { path: '/v1/chat/completions', json: { model: p.model, max_tokens: 40, messages: [{ role: 'user', content: text }], stream: p.stream } }
}

/** The charge the client saw at the end of a completed answer (rubles), and the generation id if it carries one. */
function costOf(p: Plan, text: string): { cost: number | null; id: string | null } {
  if (!p.stream) {
    try {
      const j = JSON.parse(text)
      return { cost: typeof j.usage?.cost === 'number' ? j.usage.cost : null, id: p.protocol === 'chat' ? (j.id ?? null) : null }
    } catch {
      return { cost: null, id: null }
    }
  }
  const complete = p.protocol === 'chat' ? text.includes('data: [DONE]') : p.protocol === 'responses' ? text.includes('response.completed') : text.includes('message_stop')
  if (!complete) return { cost: null, id: null }
  const m = [...text.matchAll(/"cost":([0-9.eE+-]+)/g)].at(-1)
  const id = p.protocol === 'chat' ? (text.match(/"id":"([^"]+)"/)?.[1] ?? null) : null
  return { cost: m ? Number(m[1]) : null, id }
}

async function send(base: () => string, key: string, p: Plan): Promise<Seen> {
  const { path, json } = body(p)
  const ac = new AbortController()
  const timer = setTimeout(() => ac.abort(), 20_000)
  const t0 = performance.now()
  const ms = () => performance.now() - t0
  try {
    const res = await fetch(`${base()}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
      signal: ac.signal,
    })
    if (p.abort && res.body) {
      const reader = res.body.getReader()
      await reader.read()
      ac.abort()
      return { plan: p, status: 'aborted', completedWithCost: null, upstreamId: null, ms: ms() }
    }
    const text = await res.text()
    const seen = res.status === 200 ? costOf(p, text) : { cost: null, id: null }
    return { plan: p, status: res.status, completedWithCost: seen.cost, upstreamId: seen.id, ms: ms() }
  } catch {
    return { plan: p, status: ac.signal.aborted && p.abort ? 'aborted' : 'network', completedWithCost: null, upstreamId: null, ms: ms() }
  } finally {
    clearTimeout(timer)
  }
}

async function main() {
  const t0 = performance.now()
  const cap = setTimeout(() => {
    console.error(`chaos: the run exceeded ${RUN_CAP_MS / 1000} s; stopping`)
    process.exit(1)
  }, RUN_CAP_MS)
  const upstream = await startFakeUpstream({ faults: true, tokenDelayMs: 1, apiKey: UPSTREAM_KEY })
  const fallback = FAILOVER ? await startFakeUpstream({ faults: true, tokenDelayMs: 1, apiKey: FALLBACK_KEY }) : null
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-chaos-'))
  const aggregator = CONTINUITY ? await startFakeAggregator() : null
  const giga = CONTINUITY ? await startFakeGigachat() : null
  const upstreamsFile = join(dataDir, 'upstreams.json')
  if (aggregator && giga)
    writeFileSync(
      upstreamsFile,
      JSON.stringify({
        upstreams: [
          aggregator.entry('ruagg', [{ id: SHARED_MODEL, upstreamModel: 'gpt-4o-mini', name: 'GPT-4o mini', context: 128000, prompt: '20', completion: '80' }]),
          giga.entry('giga', [{ id: GIGA_MODEL, upstreamModel: 'GigaChat-2-Max', name: 'GigaChat 2 Max', context: 131072, ...GIGA_PRICE }]),
        ],
      }),
    )
  const pg = STORE === 'pg' ? await startPostgres() : null
  const databaseUrl = pg ? await pg.createDatabase() : join(dataDir, 'gateway.db')
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    HOLD_LEASE_MS: String(LEASE_MS),
    ...(pg ? { DATABASE_URL: databaseUrl } : {}),
    OPENROUTER_API_KEY: UPSTREAM_KEY,
    OPENROUTER_BASE_URL: upstream.url,
    USD_RUB_RATE: TEST_RATE,
    WELCOME_BONUS_RUB: String(BONUS_RUB),
    UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
    ...(fallback ? { FALLBACK_UPSTREAM_URL: fallback.url, FALLBACK_UPSTREAM_API_KEY: FALLBACK_KEY, UPSTREAM_BREAKER_COOLDOWN_MS: String(BREAKER_COOLDOWN_MS) } : {}),
    ...(CONTINUITY ? { UPSTREAMS_FILE: upstreamsFile, UPSTREAM_BREAKER_COOLDOWN_MS: String(BREAKER_COOLDOWN_MS) } : {}),
  }
  let server: TestServer = await startServer(env)
  const base = () => server.url
  try {
    console.log(
      CONTINUITY
        ? `chaos (continuity): ${REQUESTS} requests, ${ACCOUNTS} accounts with ${BONUS_RUB} ₽, concurrency ${CONCURRENCY}; the router syncs the catalogue, then refuses connections for the whole run; ${SHARED_MODEL} has a second route (an aggregator in rubles), ${GIGA_MODEL} is GigaChat's, ${ROUTER_ONLY_MODEL} the router's alone; ${ABORT_SHARE * 100}% of streams aborted`
        : FAILOVER
          ? `chaos (failover): ${REQUESTS} requests, ${ACCOUNTS} accounts with ${BONUS_RUB} ₽, concurrency ${CONCURRENCY}, the primary failing ${PRIMARY_FAILING * 100}% (${PRIMARY_FAULTS.join(', ')} in turns of ${FAULT_TURN}) and refusing connections from request ${REQUESTS * DOWN_FROM} to ${REQUESTS * DOWN_TO}; a second router configured; ${ABORT_SHARE * 100}% of streams aborted`
          : `chaos: ${REQUESTS} requests, ${ACCOUNTS} accounts with ${BONUS_RUB} ₽, concurrency ${CONCURRENCY}, ${FAULT_SHARE * 100}% faults, ${ABORT_SHARE * 100}% of streams aborted, kill -9 at ${REQUESTS / 2}, on ${pg ? 'PostgreSQL' : 'SQLite'}`,
    )
    // The second router's catalogue is read at start: requests go to it only once it is.
    if (fallback) while (!fallback.log.some((r) => r.path.endsWith('/embeddings/models'))) await Bun.sleep(50)
    const accounts = await Promise.all(
      Array.from({ length: ACCOUNTS }, async () => {
        const u = await registerUser(server.url)
        const key = await u.api.post('/api/auth/api-keys', { name: 'chaos' }, u.accessToken)
        return { userId: u.user.id as string, key: key.body.data.key as string }
      }),
    )
    const plans = Array.from({ length: REQUESTS }, plan)
    if (CONTINUITY) {
      await upstream.refuse()
      console.log('  the router refuses connections from now on')
    }
    const seen: Seen[] = []
    let next = 0
    let killedAt = -1
    let restarting: Promise<void> | null = null
    const worker = async () => {
      while (next < plans.length) {
        const i = next++
        if (FAILOVER) {
          if (i % FAULT_TURN === 0) upstream.outage({ fault: PRIMARY_FAULTS[Math.floor(i / FAULT_TURN) % PRIMARY_FAULTS.length]!, share: PRIMARY_FAILING })
          if (i === Math.floor(REQUESTS * DOWN_FROM)) {
            console.log(`  the primary stops answering at request ${i} (${((performance.now() - t0) / 1000).toFixed(1)} s)`)
            void upstream.refuse()
          }
          if (i === Math.floor(REQUESTS * DOWN_TO)) {
            console.log(`  the primary is back at request ${i} (${((performance.now() - t0) / 1000).toFixed(1)} s)`)
            upstream.accept()
          }
        } else if (!CONTINUITY && i === Math.floor(REQUESTS / 2) && killedAt < 0) {
          killedAt = i
          restarting = (async () => {
            await server.kill()
            console.log(`  kill -9 at request ${i} (${((performance.now() - t0) / 1000).toFixed(1)} s); restarting on the same data`)
            server = await startServer({ ...env, PORT: new URL(server.url).port })
          })()
        }
        if (restarting) await restarting
        const p = plans[i]!
        seen.push(await send(base, accounts[p.account]!.key, p))
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))
    const wall = (performance.now() - t0) / 1000

    // Reconciliations after client aborts ask the upstream for up to ~8 s; the books are read after.
    const read = databaseReader(databaseUrl)
    // So does giving back the dead process's holds (and reserves), once their lease lapsed.
    for (let i = 0; i < 300; i++) {
      const [h] = await read<{ h: number }>('select coalesce(sum(held_micros), 0) as h from users')
      if (h!.h === 0) break
      await Bun.sleep(50)
    }

    const count = (f: (s: Seen) => boolean) => seen.filter(f).length
    console.log(`\n  ${seen.length} requests in ${wall.toFixed(1)} s:`)
    console.log(
      `    200 ${count((s) => s.status === 200)}, 402 ${count((s) => s.status === 402)}, other 4xx ${count((s) => typeof s.status === 'number' && s.status >= 400 && s.status < 500 && s.status !== 402)}, 5xx ${count((s) => typeof s.status === 'number' && s.status >= 500)}, aborted by the client ${count((s) => s.status === 'aborted')}, cut by the kill ${count((s) => s.status === 'network')}`,
    )
    const statuses = new Map<string, number>()
    for (const s of seen)
      if (typeof s.status === 'number' && s.status >= 400) statuses.set(`${s.plan.protocol} ${s.status}`, (statuses.get(`${s.plan.protocol} ${s.status}`) ?? 0) + 1)
    console.log(`    by route and status: ${[...statuses].map(([k, v]) => `${k}: ${v}`).join(', ')}`)
    console.log(`    faults injected ${count((s) => s.plan.fault !== null)}; completed answers with a charge ${count((s) => s.completedWithCost !== null)}`)
    if (CONTINUITY) {
      const asked = (f: (s: Seen) => boolean) => seen.filter((s) => s.status !== 'aborted' && f(s))
      for (const model of [SHARED_MODEL, GIGA_MODEL, ROUTER_ONLY_MODEL]) {
        const mine = asked((s) => s.plan.model === model)
        const ok = mine.filter((s) => s.completedWithCost !== null).map((s) => s.ms)
        ok.sort((a, b) => a - b)
        const pct = (q: number) => (ok.length ? ok[Math.min(ok.length - 1, Math.floor(q * ok.length))]!.toFixed(0) : '—')
        console.log(
          `    ${model}: ${ok.length} of ${mine.length} answered (${((ok.length / Math.max(1, mine.length)) * 100).toFixed(2)} %), complete answer in p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms`,
        )
      }
      const logs = server.logs()
      console.log(
        `    the router's breaker opened ${logs.split('\n').filter((l) => l.includes('primary: circuit opened') || l.includes('primary: circuit re-opened')).length} times`,
      )
    }
    if (FAILOVER) {
      // Success: a complete answer (a stream cut mid-way is a 200 that failed). Aborted requests were the client's choice.
      const asked = count((s) => s.status !== 'aborted')
      const answered = seen.filter((s) => s.completedWithCost !== null).map((s) => s.ms)
      answered.sort((a, b) => a - b)
      const pct = (q: number) => answered[Math.min(answered.length - 1, Math.floor(q * answered.length))]!.toFixed(0)
      console.log(
        `    success rate ${((answered.length / asked) * 100).toFixed(2)} % (${answered.length} of ${asked} not abandoned); complete answer in p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms, p99 ${pct(0.99)} ms, max ${answered.at(-1)!.toFixed(0)} ms`,
      )
      const logs = server.logs()
      const lines = (needle: string) => logs.split('\n').filter((l) => l.includes(needle)).length
      console.log(
        `    the primary's breaker: opened ${lines('primary: circuit opened')}, re-opened after a failed probe ${lines('primary: circuit re-opened')}, closed ${lines('primary: circuit closed')}`,
      )
    }

    const problems: string[] = []
    const usage = await read<{
      id: string
      user_id: string
      upstream_id: string | null
      upstream_cost_usd: string | null
      cost_micros: number
      status: string
      upstream: string
      prompt_tokens: number
      completion_tokens: number
    }>('select id, user_id, upstream_id, upstream_cost_usd, cost_micros, status, upstream, prompt_tokens, completion_tokens from usage_logs')
    const byUpstream = new Map<string, typeof usage>()
    for (const u of usage) if (u.upstream_id) byUpstream.set(u.upstream_id, [...(byUpstream.get(u.upstream_id) ?? []), u])
    for (const [id, rows] of byUpstream) if (rows.length > 1) problems.push(`upstream generation ${id} has ${rows.length} usage rows`)
    for (const u of usage) {
      if (u.cost_micros === 0) continue
      if (u.upstream === 'ruagg' || u.upstream === 'giga') {
        // A stream the client left is charged a guess within its hold: only answers are checked to the micro-ruble.
        if (u.status !== 'success') continue
        const rub =
          u.upstream === 'ruagg'
            ? aggregator?.costs.get(u.upstream_id ?? '')
            : (u.prompt_tokens * Number(GIGA_PRICE.prompt) + u.completion_tokens * Number(GIGA_PRICE.completion)) / 1e6
        if (rub === undefined) problems.push(`usage ${u.id}: charged ${u.cost_micros} µ₽ without a known answer at ${u.upstream}`)
        else if (u.cost_micros !== ceilUnits(mul(dec(String(rub)), dec('1.3')), 6))
          problems.push(`usage ${u.id}: charged ${u.cost_micros} µ₽, ${u.upstream}'s cost gives ${rub} ₽ × 1.3`)
        continue
      }
      // The generation is looked up at the router the row says answered: each bills at its own reported cost.
      const router = u.upstream === 'fallback' ? fallback : upstream
      const g = u.upstream_id ? router?.generations.get(u.upstream_id) : undefined
      if (!g) problems.push(`usage ${u.id}: charged ${u.cost_micros} µ₽ without a known generation at the ${u.upstream} router`)
      else if (u.cost_micros !== expectedCharge(g.total_cost) && u.status === 'success')
        problems.push(`usage ${u.id}: charged ${u.cost_micros} µ₽, reported cost gives ${expectedCharge(g.total_cost)}`)
    }
    for (const s of seen.filter((s) => s.completedWithCost !== null && s.upstreamId)) {
      const rows = byUpstream.get(s.upstreamId!) ?? []
      if (rows.length !== 1) problems.push(`answer ${s.upstreamId}: ${rows.length} usage rows`)
      else if (rows[0]!.cost_micros !== Math.round(s.completedWithCost! * 1e6))
        problems.push(`answer ${s.upstreamId}: client saw ${s.completedWithCost} ₽, charged ${rows[0]!.cost_micros} µ₽`)
    }
    const completed = count((s) => s.completedWithCost !== null)
    const successRows = usage.filter((u) => u.status === 'success').length
    if (successRows < completed) problems.push(`${completed} completed answers but only ${successRows} success usage rows`)

    const books = await read<{ id: string; balance: number; held: number; ledger: number; spent: number }>(
      `select u.id, u.balance_micros as balance, u.held_micros as held,
              (select coalesce(sum(amount_micros), 0) from ledger_entries l where l.user_id = u.id) as ledger,
              (select coalesce(sum(cost_micros), 0) from usage_logs g where g.user_id = u.id) as spent
       from users u`,
    )
    for (const b of books) {
      if (b.balance !== b.ledger) problems.push(`user ${b.id}: balance ${b.balance} ≠ ledger sum ${b.ledger}`)
      if (b.held !== 0) problems.push(`user ${b.id}: ${b.held} µ₽ still held`)
      if (b.balance < 0) problems.push(`user ${b.id}: balance below zero`)
      if (b.balance !== BONUS_RUB * 1e6 - b.spent) problems.push(`user ${b.id}: balance ${b.balance} ≠ bonus − usage ${BONUS_RUB * 1e6 - b.spent}`)
    }
    const [uncovered] = await read<{ n: number }>('select count(*) as n from uncovered_costs')
    if (uncovered!.n) problems.push(`${uncovered!.n} uncovered-cost records`)

    const byRouter = (name: string) => usage.filter((u) => u.status === 'success' && u.upstream === name).length
    const who = FAILOVER
      ? `: ${byRouter('primary')} answered by the primary, ${byRouter('fallback')} by the second router`
      : CONTINUITY
        ? `: ${byRouter('primary')} by the router, ${byRouter('ruagg')} by the aggregator, ${byRouter('giga')} by GigaChat`
        : ''
    console.log(`\nbooks of ${books.length} accounts: ${usage.length} usage rows (${successRows} success${who}), ${byUpstream.size} upstream generations billed`)
    if (problems.length === 0)
      console.log(
        "  OK    balance = ledger sum = bonus − usage, nothing held, one usage row per generation, every charge = the answering route's cost × rate × markup, every completed answer charged what it showed, nothing uncovered",
      )
    else for (const p of problems.slice(0, 30)) console.log(`  WRONG ${p}`)
    console.log(`\ndone in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    return problems.length === 0
  } finally {
    clearTimeout(cap)
    await server.stop().catch(() => {})
    await upstream.stop()
    await fallback?.stop()
    await aggregator?.stop()
    await giga?.stop()
    if (pg) {
      await closeReader(databaseUrl)
      await pg.stop()
    }
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (e) => {
    console.error('chaos failed:', e)
    process.exit(1)
  },
)
