// What the money kernel's per-request units cost on their own: a hold placed and settled through a
// key, as the gateway does for every /v1 request, on a SQLite database on disk with the app's
// checkpointer — no HTTP, no upstream. CPU per request at each concurrency, in alternating rounds
// (the VM's speed drifts within minutes: compare the rounds of one run).
//
//   bun bench/money-units.ts                      # concurrency 1 and 16, 3 rounds of 8 000 requests
//   bun bench/money-units.ts --concurrency 1,64 --rounds 5 --requests 20000
//   bun bench/money-units.ts --sql 'create index …'   # statements run after the migrations (an experiment)
//
// Exit 0 with the figures; 2 for bad arguments.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase, runMigrations, startCheckpointer } from '../src/db/client'
import { onPostgres } from '../src/db/dialect'
import { placeHold, settleHold } from '../src/money'
import { addAccount, usageFacts } from '../src/test-support/billing'

function args() {
  const out = { concurrency: [1, 16], rounds: 3, requests: 8000, sql: [] as string[] }
  const argv = process.argv.slice(2)
  for (let i = 0; i < argv.length; i++) {
    const [name, value] = [argv[i], argv[i + 1]]
    const number = Number(value)
    if (name === '--concurrency' && value && value.split(',').every((c) => Number.isInteger(Number(c)) && Number(c) > 0)) out.concurrency = value.split(',').map(Number)
    else if (name === '--rounds' && Number.isInteger(number) && number > 0) out.rounds = number
    else if (name === '--requests' && Number.isInteger(number) && number > 0) out.requests = number
    else if (name === '--sql' && value) out.sql.push(value)
    else {
      console.error('usage: bun bench/money-units.ts [--concurrency 1,16] [--rounds 3] [--requests 8000] [--sql STATEMENT]')
      process.exit(2)
    }
    i++
  }
  return out
}

const opts = args()
if (onPostgres) {
  console.error('bench/money-units.ts measures SQLite (DATABASE_URL names PostgreSQL here)')
  process.exit(2)
}
const dir = mkdtempSync(join(tmpdir(), 'money-units-'))
const url = join(dir, 'gateway.db')
const { db, close } = openDatabase(url)
await runMigrations(db)
for (const statement of opts.sql) db.$client.exec(statement)
const stopCheckpointer = startCheckpointer(db, url)
await addAccount(db, 'u1', 1_000_000_000_000)
db.$client.prepare("insert into api_keys (id, user_id, name, key_prefix, key_hash, created_at) values ('k1', 'u1', 'bench', 'sk-gw-', 'bench', ?)").run(Date.now())

/** One request's units: its hold, then its settlement to a charge below the hold. */
async function request() {
  const holdId = await placeHold(db, { userId: 'u1', teamId: null, apiKeyId: 'k1', amountMicros: 50_000 })
  await settleHold(db, holdId, 30_000, { ...usageFacts, holdId })
}

/** `count` requests by `concurrency` workers back to back; CPU and wall µs per request. */
async function measure(concurrency: number, count: number) {
  let left = count
  const cpu = process.cpuUsage()
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await request()
    }),
  )
  const used = process.cpuUsage(cpu)
  return { cpu: (used.user + used.system) / count, wall: ((performance.now() - started) * 1000) / count }
}

await measure(16, 4000) // JIT warm-up
console.log(`money units (placeHold + settleHold through a key), SQLite on disk, ${opts.requests} requests per round`)
for (let round = 1; round <= opts.rounds; round++) {
  const figures = []
  for (const c of opts.concurrency) {
    const m = await measure(c, opts.requests)
    figures.push(`c${c}: ${m.cpu.toFixed(0)} µs CPU, ${m.wall.toFixed(0)} µs wall`)
  }
  console.log(`  round ${round}  ${figures.join('   ')}`)
}
stopCheckpointer()
await close()
rmSync(dir, { recursive: true, force: true })
