// Where a scenario's time goes on PostgreSQL (issue 25), for bench/gateway.ts --profile: statement
// counts and times from pg_stat_statements (round trips per request, BEGIN/COMMIT included), write
// transactions (transaction ids handed out), WAL written and flushed, PostgreSQL's own CPU (/proc of
// the cluster's processes, plus what its ended children used), and pg_stat_activity sampled every
// 20 ms: how many pooled connections run a statement, sit idle inside a transaction waiting for the
// gateway's next one, or wait for a row lock. The sampler is one more connection and ≈ 50 small
// queries a second: a little of PostgreSQL's CPU is its own.
import { readFileSync } from 'node:fs'
import { SQL } from 'bun'

const SAMPLE_EVERY_MS = 20

/** User + system CPU of a process in ms; `children` adds what its ended (reaped) children used. */
function cpuMs(pid: number, children = false): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    // utime, stime, cutime, cstime (fields 14–17 of stat, counted after the command) in 10 ms ticks
    return (Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0)) * 10
  } catch {
    return 0
  }
}

/** The cluster's CPU so far: live processes, and the postmaster's reaped children. */
export const clusterCpuMs = (pids: number[]) => pids.reduce((s, pid, i) => s + cpuMs(pid, i === 0), 0)

type Counters = { xid: number; walRecords: number; walBytes: number; walSyncs: number; commits: number; rollbacks: number }

async function counters(sql: SQL): Promise<Counters> {
  const [row] = await sql`
    select txid_current() as xid,
      w.wal_records, w.wal_bytes, w.wal_sync, d.xact_commit, d.xact_rollback
    from pg_stat_wal w, pg_stat_database d where d.datname = current_database()`
  return {
    xid: Number(row.xid),
    walRecords: Number(row.wal_records),
    walBytes: Number(row.wal_bytes),
    walSyncs: Number(row.wal_sync),
    commits: Number(row.xact_commit),
    rollbacks: Number(row.xact_rollback),
  }
}

export type PgProfiler = {
  /** Starts a scenario's profile (counters reset, sampler on). */
  start(): Promise<void>
  /** Ends it: the report's lines for `requests` gateway requests that ran meanwhile. */
  stop(requests: number): Promise<string[]>
  close(): Promise<void>
}

/** A profiler on the gateway's database `url` of the cluster whose processes `pids` lists. */
export async function pgProfiler(url: string, pids: () => number[]): Promise<PgProfiler> {
  const sql = new SQL(url, { max: 1 })
  const sampler = new SQL(url, { max: 1 })
  await sql`create extension if not exists pg_stat_statements`
  let c0: Counters | undefined
  let cpu0 = 0
  let wall0 = 0
  let timer: ReturnType<typeof setInterval> | undefined
  let inFlight: Promise<unknown> | undefined
  let samples = 0
  const sum = { active: 0, idleInTx: 0, lockWait: 0, idle: 0 }
  const lockKinds = new Map<string, number>()

  const sample = async () => {
    const rows = await sampler`
      select state, wait_event_type as wt, wait_event as we, count(*)::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
        and query not like '%pg_stat%'
      group by 1, 2, 3`
    samples++
    for (const r of rows as Array<{ state: string | null; wt: string | null; we: string | null; n: number }>) {
      if (r.state === 'active') sum.active += r.n
      else if (r.state?.startsWith('idle in transaction')) sum.idleInTx += r.n
      else if (r.state === 'idle') sum.idle += r.n
      if (r.wt === 'Lock') {
        sum.lockWait += r.n
        lockKinds.set(r.we ?? '?', (lockKinds.get(r.we ?? '?') ?? 0) + r.n)
      }
    }
  }

  return {
    async start() {
      await sql`select pg_stat_statements_reset()`
      c0 = await counters(sql)
      cpu0 = clusterCpuMs(pids())
      wall0 = performance.now()
      samples = 0
      sum.active = sum.idleInTx = sum.lockWait = sum.idle = 0
      lockKinds.clear()
      timer = setInterval(() => {
        if (!inFlight) inFlight = sample().finally(() => (inFlight = undefined))
      }, SAMPLE_EVERY_MS)
    },
    async stop(requests) {
      clearInterval(timer)
      await inFlight
      const wallS = (performance.now() - wall0) / 1000
      const cpu = clusterCpuMs(pids()) - cpu0
      const c1 = await counters(sql)
      const stmts = (await sql`
        select calls::int, plans::int, total_exec_time as total, mean_exec_time as mean, mean_plan_time as plan, rows::int, query
        from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
          and query not like '%pg_stat%' and query not like '%txid_current%'
        order by calls desc`) as Array<{ calls: number; plans: number; total: number; mean: number; plan: number; rows: number; query: string }>
      const per = (n: number) => (requests > 0 ? n / requests : 0)
      const calls = stmts.reduce((s, r) => s + r.calls, 0)
      const exec = stmts.reduce((s, r) => s + r.total, 0)
      const avg = (n: number) => (samples > 0 ? (n / samples).toFixed(1) : 'n/a')
      const lines = [
        `    PostgreSQL, per gateway request (${requests} requests, ${wallS.toFixed(1)} s): ${per(calls).toFixed(1)} statements (round trips, BEGIN/COMMIT included), ` +
          `${per(c1.xid - c0!.xid - 1).toFixed(2)} write transactions, ${per(c1.commits - c0!.commits).toFixed(2)} commits + ${per(c1.rollbacks - c0!.rollbacks).toFixed(2)} rollbacks (pg_stat_database, may lag), ` +
          `${per(c1.walRecords - c0!.walRecords).toFixed(1)} WAL records / ${(per(c1.walBytes - c0!.walBytes) / 1024).toFixed(1)} KiB, ${per(c1.walSyncs - c0!.walSyncs).toFixed(2)} WAL flushes; ` +
          `server CPU ${per(cpu).toFixed(3)} ms, statement execution ${per(exec).toFixed(3)} ms`,
        `    pool, average of ${samples} samples every ${SAMPLE_EVERY_MS} ms: ${avg(sum.active)} running a statement (${avg(sum.lockWait)} of them waiting for a lock${
          lockKinds.size > 0 ? `: ${[...lockKinds].map(([k, n]) => `${k} ${avg(n)}`).join(', ')}` : ''
        }), ${avg(sum.idleInTx)} idle inside a transaction, ${avg(sum.idle)} idle`,
        '    statements by calls (calls/request, mean exec ms, plans per call, mean plan ms, total exec s):',
        ...stmts
          .filter((r) => per(r.calls) >= 0.01)
          .slice(0, 24)
          .map(
            (r) =>
              `      ${per(r.calls).toFixed(2).padStart(5)}  ${r.mean.toFixed(3).padStart(7)}  ${(r.calls > 0 ? r.plans / r.calls : 0).toFixed(2).padStart(4)}  ${r.plan.toFixed(3).padStart(7)}  ${(r.total / 1000).toFixed(2).padStart(6)}  ${r.query.replace(/\s+/g, ' ').slice(0, 150)}`,
          ),
      ]
      return lines
    },
    async close() {
      clearInterval(timer)
      await inFlight
      await Promise.all([sql.close(), sampler.close()])
    },
  }
}
