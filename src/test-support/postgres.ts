// A throwaway PostgreSQL for tests: Debian's binaries, a fresh cluster in a temp directory, on a
// free loopback port, gone after stop(). The API suite's second run (scripts/test-pg.ts) and the
// multi-instance tests use it; nothing here is needed for the SQLite run.
//
// PostgreSQL refuses to run as root, and CI runs as root: then initdb/pg_ctl run as the `postgres`
// user (Debian's package creates it) through `runuser`, and the temp directory is handed to it.

import { createHash } from 'node:crypto'
import { accessSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL } from 'bun'
import { freePort } from './ports'

export type TestPostgres = {
  /** Admin URL (user postgres, database postgres): for CREATE/DROP DATABASE. */
  url: string
  /** The cluster's directory (data, socket, log); removed by stop(). */
  dir: string
  /** Creates an empty database (a random name unless given) and returns its URL. */
  createDatabase(name?: string): Promise<string>
  /** Stops the server at once (`-m immediate`: nothing to keep) and removes the directory. */
  stop(): Promise<void>
  /** Stops the server (fast shutdown: connections are closed) and keeps its data: an outage. */
  halt(): Promise<void>
  /** Starts the halted server again, on the same port and data. */
  resume(): Promise<void>
  /** SIGSTOP to every process of the cluster: connections stay open and nothing answers. */
  freeze(): void
  /** SIGCONT: the frozen cluster goes on. */
  thaw(): void
  /** Every process of the cluster now (the postmaster first): a bench reads their CPU from /proc. */
  pids(): number[]
}

/** The postmaster (first line of postmaster.pid) and its children: every process of the cluster. */
function clusterPids(data: string): number[] {
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
  const pids = [postmaster]
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // pid (comm) state ppid …: the command may hold spaces, so the fields are counted after its ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) pids.push(Number(entry))
    } catch {}
  }
  return pids
}

const PG_ROOT = '/usr/lib/postgresql'
const START_TIMEOUT_MS = 30_000

/** The bin directory of the newest installed major version, e.g. /usr/lib/postgresql/17/bin. */
export function findPostgresBin(): string {
  const versions = existsSync(PG_ROOT)
    ? readdirSync(PG_ROOT)
        .filter((v) => /^\d+(\.\d+)?$/.test(v) && existsSync(join(PG_ROOT, v, 'bin', 'initdb')) && existsSync(join(PG_ROOT, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : []
  if (!versions.length) {
    throw new Error(`PostgreSQL server binaries not found (${PG_ROOT}/*/bin/initdb, pg_ctl). Install them with: apt-get install -y postgresql`)
  }
  return join(PG_ROOT, versions[0]!, 'bin')
}

const asRoot = () => process.getuid?.() === 0

/** Runs a PostgreSQL tool, as `postgres` when we are root; throws with its output on failure. */
async function run(argv: string[], cwd: string): Promise<string> {
  const cmd = asRoot() ? ['runuser', '-u', 'postgres', '--', ...argv] : argv
  // cwd = the cluster dir: the postgres user may not be allowed into the caller's working directory.
  const proc = Bun.spawn(cmd, { cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C' } })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`${argv.map((a) => (a.includes(' ') ? JSON.stringify(a) : a)).join(' ')} exited with ${code}:\n${out}${err}`)
  return out + err
}

/** Database names we create: plain lowercase identifiers, so they need no quoting beyond "…". */
const validName = (name: string) => /^[a-z_][a-z0-9_]{0,62}$/.test(name)
const randomName = () => `t_${Date.now().toString(36)}_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`

/** `url` with its database replaced by `db`. */
export function databaseUrl(adminUrl: string, db: string): string {
  const u = new URL(adminUrl)
  u.pathname = `/${db}`
  return u.toString()
}

// One small pool per cluster for CREATE/DROP DATABASE: a suite creates a database per test server,
// and a new connection each time costs as much as a small CREATE. Idle connections close on their
// own, so the pool never keeps a finished process alive.
const adminPools = new Map<string, { sql: SQL; strategy: Promise<string> }>()
function adminPool(adminUrl: string) {
  let pool = adminPools.get(adminUrl)
  if (!pool) {
    const sql = new SQL({ url: adminUrl, max: 4, idleTimeout: 5 })
    // PostgreSQL 15+ copies the template file by file (STRATEGY FILE_COPY): faster than its default
    // WAL_LOG for a small template, and durability is off here anyway.
    const strategy = sql`SELECT current_setting('server_version_num')::int AS v`.then(
      ([row]: any[]) => (row.v >= 150000 ? ' STRATEGY FILE_COPY' : ''),
      () => '',
    )
    adminPools.set(adminUrl, (pool = { sql, strategy }))
  }
  return pool
}
async function closeAdminPool(adminUrl: string) {
  const pool = adminPools.get(adminUrl)
  adminPools.delete(adminUrl)
  await pool?.sql.close().catch(() => {})
}

/**
 * Creates database `name` (random when omitted) on the cluster behind `adminUrl`; returns its URL.
 * `ifMissing`: an existing database of that name is reused instead of an error.
 */
export async function createTestDatabase(adminUrl: string, name = randomName(), ifMissing = false): Promise<string> {
  if (!validName(name)) throw new Error(`bad test database name: ${name}`)
  const { sql, strategy } = adminPool(adminUrl)
  for (let attempt = 1; ; attempt++) {
    try {
      await sql.unsafe(`CREATE DATABASE "${name}"${await strategy}`)
      break
    } catch (e: any) {
      if (ifMissing && (e?.errno === '42P04' || /already exists/.test(String(e?.message)))) break
      // Two CREATE DATABASE at the same moment may collide on template1; a retry settles it.
      if (attempt < 5 && /being accessed by other users/.test(String(e?.message))) {
        await Bun.sleep(100 * attempt)
        continue
      }
      throw e
    }
  }
  return databaseUrl(adminUrl, name)
}

/** Drops a database by URL or name, closing whatever still connects to it (PostgreSQL 13+). */
export async function dropTestDatabase(adminUrl: string, urlOrName: string): Promise<void> {
  const name = urlOrName.includes('://') ? decodeURIComponent(new URL(urlOrName).pathname.slice(1)) : urlOrName
  if (!validName(name)) throw new Error(`bad test database name: ${name}`)
  await adminPool(adminUrl).sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
}

/** A database name that is the same for the same DATA_DIR: a restarted test server finds its data. */
export const databaseNameFor = (dataDir: string) => `t_dir_${createHash('sha1').update(dataDir).digest('hex').slice(0, 20)}`

/** Waits until the server answers a query (pg_ctl -w only watches the pid file). */
async function waitReady(url: string, logFile: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS
  let last: unknown
  while (Date.now() < deadline) {
    const sql = new SQL({ url, max: 1, connectionTimeout: 2 })
    try {
      await sql`SELECT 1`
      return
    } catch (e) {
      last = e
    } finally {
      await sql.close().catch(() => {})
    }
    await Bun.sleep(100)
  }
  throw new Error(`PostgreSQL did not accept connections within ${START_TIMEOUT_MS / 1000} s: ${String(last)}\n${readLog(logFile)}`)
}

const readLog = (file: string) => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

// Clusters still running when the process exits (a test runner that crashed or forgot stop()):
// stopped synchronously, so no postgres is left behind holding a port and a temp directory.
const running = new Map<string, string[]>()
process.on('exit', () => {
  for (const [dir, argv] of running) {
    try {
      Bun.spawnSync(argv, { cwd: dir, stdout: 'ignore', stderr: 'ignore' })
      rmSync(dir, { recursive: true, force: true })
    } catch {}
  }
})

/**
 * Where the cluster lives: memory (/dev/shm) when there is one, since nothing must survive and every
 * CREATE DATABASE copies the template's files; TEST_PG_TMPDIR overrides it.
 */
function clusterParent(): string {
  if (process.env.TEST_PG_TMPDIR) return process.env.TEST_PG_TMPDIR
  try {
    accessSync('/dev/shm', constants.W_OK)
    return '/dev/shm'
  } catch {
    return tmpdir()
  }
}

/** uid/gid of Debian's `postgres` user, which the server runs as when we are root. */
function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'))
  const [, , uid, gid] = line?.split(':') ?? []
  if (!uid || !gid) throw new Error('Running as root, but there is no `postgres` user to run PostgreSQL as (apt-get install -y postgresql creates it)')
  return { uid: Number(uid), gid: Number(gid) }
}

export type PostgresOptions = {
  /**
   * A cluster configured like a production one (bench/gateway.ts): on disk beside the SQLite file
   * (the temp directory, not memory), with fsync, synchronous commit, full-page writes and the
   * default WAL level. Tests keep all of that off: nothing of theirs must survive a crash.
   */
  durable?: boolean
  /** Further server settings (`name=value`), e.g. shared_preload_libraries for a profile. */
  settings?: string[]
}

export async function startPostgres(opts: PostgresOptions = {}): Promise<TestPostgres> {
  const bin = findPostgresBin()
  const owner = asRoot() ? postgresUser() : undefined
  const dir = mkdtempSync(join(opts.durable ? (process.env.TEST_PG_TMPDIR ?? tmpdir()) : clusterParent(), 'gateway-pg-'))
  const data = join(dir, 'data')
  const logFile = join(dir, 'postgres.log')
  try {
    if (owner) chownSync(dir, owner.uid, owner.gid)
    // trust on loopback: a throwaway cluster with no secrets; --no-sync: nothing here must survive a crash.
    await run([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], dir)

    // The port is free when probed, but another process may take it before postgres binds: retry.
    for (let attempt = 1; ; attempt++) {
      const port = freePort()
      const options = [
        `-k ${dir}`, // the unix socket lives in our directory, not in /var/run/postgresql
        '-h 127.0.0.1',
        `-p ${port}`,
        ...(opts.durable
          ? []
          : [
              '-F', // fsync off
              '-c synchronous_commit=off',
              '-c full_page_writes=off',
              '-c wal_level=minimal', // no replicas: bulk writes and CREATE DATABASE skip most WAL
              '-c max_wal_senders=0',
            ]),
        '-c max_connections=300',
        '-c shared_buffers=64MB',
        ...(opts.settings ?? []).map((s) => `-c ${s}`),
      ].join(' ')
      try {
        await run([join(bin, 'pg_ctl'), 'start', '-D', data, '-l', logFile, '-w', '-t', String(START_TIMEOUT_MS / 1000), '-o', options], dir)
      } catch (e) {
        if (attempt < 4 && /could not bind|Address already in use/i.test(readLog(logFile))) continue
        throw new Error(`${(e as Error).message}\n${readLog(logFile)}`)
      }
      const stopArgv = [join(bin, 'pg_ctl'), 'stop', '-D', data, '-m', 'immediate', '-w']
      running.set(dir, asRoot() ? ['runuser', '-u', 'postgres', '--', ...stopArgv] : stopArgv)
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`
      await waitReady(url, logFile)
      let stopped = false
      const startArgv = [join(bin, 'pg_ctl'), 'start', '-D', data, '-l', logFile, '-w', '-t', String(START_TIMEOUT_MS / 1000), '-o', options]
      const signal = (sig: 'SIGSTOP' | 'SIGCONT') => {
        for (const pid of clusterPids(data))
          try {
            process.kill(pid, sig)
          } catch {} // a backend that ended meanwhile
      }
      return {
        url,
        dir,
        createDatabase: (name?: string) => createTestDatabase(url, name),
        async halt() {
          await closeAdminPool(url)
          await run([join(bin, 'pg_ctl'), 'stop', '-D', data, '-m', 'fast', '-w'], dir)
        },
        async resume() {
          await run(startArgv, dir)
          await waitReady(url, logFile)
        },
        freeze: () => signal('SIGSTOP'),
        thaw: () => signal('SIGCONT'),
        pids: () => clusterPids(data),
        async stop() {
          if (stopped) return
          stopped = true
          running.delete(dir)
          await closeAdminPool(url)
          try {
            await run(stopArgv, dir)
          } finally {
            rmSync(dir, { recursive: true, force: true })
          }
        },
      }
    }
  } catch (e) {
    const argv = running.get(dir)
    if (argv) Bun.spawnSync(argv, { cwd: dir, stdout: 'ignore', stderr: 'ignore' })
    running.delete(dir)
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
}
