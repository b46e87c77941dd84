// Usage analytics benchmark (issue 4): one customer with 1 000 000 usage rows over a year; how fast
// GET /api/billing/usage answers for each period of the usage page.
//
//   bun bench/usage.ts               # 1 000 000 rows, 40 timed requests per scenario
//   bun bench/usage.ts --rows 200000 # a smaller seed
//
// The rows are written straight into the database of a real server (`bun src/index.ts`, started
// through test-support) together with the daily rollup the gateway maintains for them, exactly as
// 1 000 000 real requests would have left them: 3 API keys plus the web session, 8 models, spread
// evenly over 365 Moscow days up to now. Then the real endpoint is timed over HTTP on loopback
// (latency = until the whole JSON body is read), after 5 warm-up calls per scenario. The page's
// own periods start at 00:00 Moscow; a "mid-day" scenario also shows the raw-head path.
// A measurement, not a test: exit code 0 whatever the figures; each target prints PASS or MISS.
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { moscowDay, moscowDayStart } from '../src/money'
import { registerUser, startServer } from '../src/test-support/server'

const args = process.argv.slice(2)
const rowsArg = args.indexOf('--rows')
const ROWS = rowsArg >= 0 ? Number(args[rowsArg + 1]) : 1_000_000
if (!Number.isInteger(ROWS) || ROWS < 1000) {
  console.error('usage: bun bench/usage.ts [--rows N ≥ 1000]')
  process.exit(2)
}
const RUNS = 40
const WARMUP = 5
const TARGET_MS = 50
const DAYS = 365
const MODELS = [
  'openai/gpt-3.5-turbo',
  'openai/gpt-4',
  'openai/gpt-4o-mini',
  'anthropic/claude-3-haiku',
  'anthropic/claude-3.5-sonnet',
  'google/gemini-flash-1.5',
  'meta-llama/llama-3.1-8b-instruct',
  'mistralai/mistral-7b-instruct',
]

const server = await startServer({ WELCOME_BONUS_RUB: '0' })
try {
  const u = await registerUser(server.url)
  const keyIds: (string | null)[] = [null]
  for (const name of ['prod', 'staging', 'notebook']) {
    const res = await u.api.post('/api/auth/api-keys', { name }, u.accessToken)
    keyIds.push(res.body.data.id)
  }

  // ------------------------------------------------------------ seed
  const seedStart = performance.now()
  const db = new Database(join(server.dataDir, 'gateway.db'))
  db.exec('PRAGMA busy_timeout = 10000')
  const insert = db.prepare(
    `insert into usage_logs (id, user_id, api_key_id, endpoint, model, prompt_tokens, completion_tokens, total_tokens,
       cost_micros, upstream_cost_usd, upstream_id, status, error, duration_ms, stream, created_at)
     values (?, ?, ?, 'chat', ?, ?, ?, ?, ?, null, null, 'success', null, ?, 0, ?)`,
  )
  const now = Date.now()
  const span = DAYS * 86_400_000
  const BATCH = 50_000
  for (let done = 0; done < ROWS; done += BATCH) {
    db.transaction(() => {
      for (let i = done; i < Math.min(ROWS, done + BATCH); i++) {
        const at = now - span + Math.floor((i / ROWS) * span)
        const prompt = 50 + (i % 400)
        const completion = 20 + ((i * 7) % 600)
        insert.run(
          Bun.randomUUIDv7('hex', at),
          u.user.id,
          keyIds[Math.floor(i / MODELS.length) % keyIds.length],
          MODELS[i % MODELS.length]!,
          prompt,
          completion,
          prompt + completion,
          1000 + ((i * 13) % 90_000),
          200 + (i % 3000),
          at,
        )
      }
    })()
  }
  // The rollup the gateway keeps in step with every usage row (same statement as the migration's backfill).
  db.exec(`insert into usage_daily (user_id, day, api_key_id, model, requests, tokens, cost_micros)
           select user_id, date(created_at / 1000 + 10800, 'unixepoch'), coalesce(api_key_id, ''), model, count(*), sum(total_tokens), sum(cost_micros)
           from usage_logs group by 1, 2, 3, 4`)
  db.exec('ANALYZE')
  const rollupRows = (db.query('select count(*) as n from usage_daily').get() as { n: number }).n
  db.close()
  console.log(`seeded ${ROWS.toLocaleString('en')} usage rows (${rollupRows.toLocaleString('en')} rollup rows) in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`)

  // ------------------------------------------------------------ measure
  const dayStartIso = (daysBack: number) => moscowDayStart(moscowDay(Date.now() - daysBack * 86_400_000)).toISOString()
  const scenarios: [string, string][] = [
    ['7d', `startDate=${dayStartIso(6)}`],
    ['30d', `startDate=${dayStartIso(29)}`],
    ['90d', `startDate=${dayStartIso(89)}`],
    ['all', ''],
    ['30d, mid-day start', `startDate=${new Date(Date.now() - 30 * 86_400_000).toISOString()}`],
    ['30d, one model', `startDate=${dayStartIso(29)}&model=${encodeURIComponent(MODELS[3]!)}`],
    ['30d, one key', `startDate=${dayStartIso(29)}&apiKeyId=${keyIds[1]}`],
  ]
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!
  console.log(`\nGET /api/billing/usage?limit=20&…  (${RUNS} timed requests each, ms)`)
  console.log('scenario               p50     p95     max   requests in period   target')
  for (const [name, query] of scenarios) {
    const url = `${server.url}/api/billing/usage?limit=20&${query}`
    const get = async () => {
      const t0 = performance.now()
      const res = await fetch(url, { headers: { authorization: `Bearer ${u.accessToken}` } })
      const body = (await res.json()) as { data: { totalRequests: number } }
      if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status} ${JSON.stringify(body)}`)
      return { ms: performance.now() - t0, n: body.data.totalRequests }
    }
    for (let i = 0; i < WARMUP; i++) await get()
    const times: number[] = []
    let n = 0
    for (let i = 0; i < RUNS; i++) {
      const r = await get()
      times.push(r.ms)
      n = r.n
    }
    const p95 = pct(times, 95)
    console.log(
      `${name.padEnd(20)} ${pct(times, 50).toFixed(1).padStart(6)}  ${p95.toFixed(1).padStart(6)}  ${Math.max(...times)
        .toFixed(1)
        .padStart(6)}   ${n.toLocaleString('en').padStart(18)}   ${p95 < TARGET_MS ? 'PASS' : 'MISS'} (p95 < ${TARGET_MS})`,
    )
  }

  const t0 = performance.now()
  const csv = await fetch(`${server.url}/api/billing/usage/export?format=csv&startDate=${dayStartIso(29)}`, { headers: { authorization: `Bearer ${u.accessToken}` } })
  const bytes = (await csv.arrayBuffer()).byteLength
  console.log(`\nCSV export, 30 days: ${(bytes / 1e6).toFixed(1)} MB in ${((performance.now() - t0) / 1000).toFixed(2)} s`)
} finally {
  await server.stop()
}
