// Starts the real server (`bun src/index.ts`) as a child process on a random loopback port,
// with its own temporary DATA_DIR. Tests talk to it over HTTP only.
import { createHmac } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort } from './ports'

export const TEST_JWT_SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz'
const ENTRY = new URL('../index.ts', import.meta.url).pathname

export type TestServer = {
  url: string
  dataDir: string
  /** The server's database: its SQLite file, or its PostgreSQL database in the PostgreSQL run. */
  databaseUrl: string
  logs: () => string
  stop: () => Promise<number>
  /** SIGKILL: a crash, with no graceful shutdown (the data directory is kept). */
  kill: () => Promise<void>
  /** SIGSTOP: the process stands still (a long GC pause, a frozen VM); connections queue. */
  pause: () => void
  /** SIGCONT after pause(). */
  resume: () => void
}

/** `bunFlags`: extra flags for `bun` before the entry (a profile: `--cpu-prof`, …); none by default. */
export type StartServerOptions = { bunFlags?: string[] }

export async function startServer(env: Record<string, string> = {}, options: StartServerOptions = {}): Promise<TestServer> {
  // The port is chosen here so PUBLIC_URL can name it: links and payment return URLs are built
  // from PUBLIC_URL only, and tests follow them. Another process may take the port in between:
  // then the start is retried on a new one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, options.bunFlags ?? [])
    } catch (e) {
      if (attempt >= 4 || !(e instanceof PortTaken)) throw e
    }
  }
}

class PortTaken extends Error {}

async function startOnce(env: Record<string, string>, bunFlags: string[]): Promise<TestServer> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'gateway-test-'))
  const port = env.PORT ?? String(freePort())
  const pg = await testDatabase(env, dataDir)
  if (pg) env = { ...env, DATABASE_URL: pg.url }
  const proc: Subprocess<'ignore', 'pipe', 'pipe'> = Bun.spawn(['bun', ...bunFlags, ENTRY], {
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? '/tmp',
      HOST: '127.0.0.1',
      PORT: port,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      // Tests pick a client address per scenario through X-Forwarded-For, isolating rate limits.
      TRUST_PROXY: 'true',
      // Most tests expect the welcome bonus at registration; the confirmation flow has its own tests.
      REQUIRE_EMAIL_VERIFICATION: 'false',
      ...env,
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let output = ''
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true })
  }
  void collect(proc.stdout)
  void collect(proc.stderr)

  const deadline = Date.now() + 15_000
  let bound: string | undefined
  while (!(bound = output.match(/listening on http:\/\/[^:]+:(\d+)/)?.[1])) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill()
      await proc.exited
      if (!env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true })
      await pg?.drop()
      if (!env.PORT && /EADDRINUSE|address already in use|port \d+ in use|Is port \d+ in use/i.test(output)) throw new PortTaken(output)
      throw new Error(`server did not start (exit ${proc.exitCode}):\n${output}`)
    }
    await Bun.sleep(20)
  }
  return {
    url: `http://127.0.0.1:${bound}`,
    dataDir,
    databaseUrl: env.DATABASE_URL ?? join(dataDir, 'gateway.db'),
    logs: () => output,
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM')
      const code = await proc.exited
      if (!env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true })
      await pg?.drop()
      return code
    },
    async kill() {
      proc.kill('SIGKILL')
      await proc.exited
    },
    pause: () => proc.kill('SIGSTOP'),
    resume: () => proc.kill('SIGCONT'),
  }
}

/**
 * The PostgreSQL run (scripts/test-pg.ts sets TEST_PG_ADMIN_URL): a server the caller gave no
 * DATABASE_URL gets its own database. With the caller's own DATA_DIR the database is named after
 * it and kept, so a restart on that DATA_DIR finds its data as it would in the SQLite file; a
 * temporary DATA_DIR gets a fresh database dropped on stop(). An explicit DATABASE_URL (instances
 * sharing one database) is passed through untouched.
 */
async function testDatabase(env: Record<string, string>, dataDir: string) {
  const adminUrl = process.env.TEST_PG_ADMIN_URL
  if (!adminUrl || env.DATABASE_URL !== undefined) return undefined
  // Imported only here: postgres.ts needs Bun's SQL, and Playwright loads this file under Node.
  const { createTestDatabase, dropTestDatabase, databaseNameFor } = await import('./postgres')
  if (env.DATA_DIR) return { url: await createTestDatabase(adminUrl, databaseNameFor(dataDir), true), drop: async () => {} }
  const url = await createTestDatabase(adminUrl)
  return { url, drop: () => dropTestDatabase(adminUrl, url).catch(() => {}) } // best effort
}

let ipCounter = 0
/** A fresh client address (sent as X-Forwarded-For), so each scenario has its own rate-limit budget. */
export const freshIp = () => `10.${(++ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`

export type ApiResult<T = any> = { status: number; body: T; headers: Headers }

/** Status, headers and the body parsed as JSON (or kept as text when it is not JSON). */
export async function readResult<T = any>(res: Response): Promise<ApiResult<T>> {
  const text = await res.text()
  let body: any = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: res.status, body, headers: res.headers }
}

/** A tiny JSON client bound to one server and one client IP. */
export function client(baseUrl: string, ip = freshIp()) {
  async function call<T = any>(method: string, path: string, body?: unknown, token?: string, raw?: string): Promise<ApiResult<T>> {
    const headers: Record<string, string> = { 'x-forwarded-for': ip }
    if (body !== undefined || raw !== undefined) headers['content-type'] = 'application/json'
    if (token) headers.authorization = `Bearer ${token}`
    return readResult<T>(await fetch(baseUrl + path, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) }))
  }
  return {
    ip,
    get: <T = any>(path: string, token?: string) => call<T>('GET', path, undefined, token),
    post: <T = any>(path: string, body?: unknown, token?: string) => call<T>('POST', path, body, token),
    patch: <T = any>(path: string, body?: unknown, token?: string) => call<T>('PATCH', path, body, token),
    postRaw: <T = any>(path: string, raw: string) => call<T>('POST', path, undefined, undefined, raw),
  }
}

let emailCounter = 0
export const uniqueEmail = (tag = 'user') => `${tag}.${Date.now().toString(36)}.${++emailCounter}@example.ru`

/** Registers a fresh account and returns its tokens and user. */
export async function registerUser(baseUrl: string, email = uniqueEmail(), password = 'correct-horse-42') {
  const api = client(baseUrl)
  const res = await api.post('/api/auth/register', { email, password })
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`)
  return { api, email, password, ...(res.body.data as { user: any; accessToken: string; refreshToken: string }) }
}

/** HS256 JWT signed like the server's, to forge expired or foreign tokens in tests. */
export function signJwt(payload: Record<string, unknown>, secret = TEST_JWT_SECRET): string {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
  const head = `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc(payload)}`
  const sig = createHmac('sha256', secret).update(head).digest('base64url') // node:crypto: Playwright runs under Node
  return `${head}.${sig}`
}
