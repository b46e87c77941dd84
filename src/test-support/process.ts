// The server child process seen from outside: its pid (found by its own DATA_DIR, which no other
// process has) and its resident memory, for tests that bound what a request may cost the server;
// and the entry point started with a configuration it must refuse.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TEST_JWT_SECRET } from './server'

const ENTRY = new URL('../index.ts', import.meta.url).pathname

/** Starts the real entry point with exactly `env` and waits for it to exit; the server must not start. */
export async function refusesToStart(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-prod-'))
  const proc = Bun.spawn(['bun', ENTRY], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, JWT_SECRET: TEST_JWT_SECRET, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000)
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  clearTimeout(timer)
  rmSync(dataDir, { recursive: true, force: true })
  return { code, stdout, stderr }
}

/** The pid of the test server whose DATA_DIR is `dataDir`. Linux only (/proc). */
export function serverPid(dataDir: string): number {
  const needle = `\0DATA_DIR=${dataDir}\0`
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (`\0${readFileSync(`/proc/${entry}/environ`, 'latin1')}`.includes(needle)) return Number(entry)
    } catch {} // gone, or another user's
  }
  throw new Error(`no process with DATA_DIR=${dataDir}`)
}

/** Resident memory of a process in MB (VmRSS). */
export function rssMb(pid: number): number {
  const kb = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1]
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`)
  return Number(kb) / 1024
}

/** Samples a process's RSS every `everyMs` until stopped; the peak is what tests assert on. */
export function rssSampler(pid: number, everyMs = 50) {
  let peak = rssMb(pid)
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid))
    } catch {}
  }, everyMs)
  return {
    get peak() {
      return Math.max(peak, rssMb(pid))
    },
    stop() {
      clearInterval(timer)
      return this.peak
    },
  }
}

/**
 * Sends only a request's head — never its body — and returns the status line of the answer, or null
 * when none came within `timeoutMs`: proof that the server answered without reading the body.
 */
export function headOnly(url: string, method: string, path: string, headers: Record<string, string>, timeoutMs = 3000): Promise<{ status: number | null; ms: number }> {
  const { hostname, port } = new URL(url)
  const started = performance.now()
  return new Promise((resolve) => {
    let got = ''
    const socket = connect({ host: hostname, port: Number(port) })
    const done = (status: number | null) => {
      clearTimeout(timer)
      socket.destroy()
      resolve({ status, ms: performance.now() - started })
    }
    const timer = setTimeout(() => done(null), timeoutMs)
    socket.on('connect', () => {
      const lines = Object.entries({ host: hostname, ...headers }).map(([k, v]) => `${k}: ${v}`)
      socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`)
    })
    socket.on('data', (d) => {
      got += d.toString('latin1')
      const status = got.match(/^HTTP\/1\.1 (\d{3})/)?.[1]
      if (status) done(Number(status))
    })
    socket.on('error', () => done(null))
    socket.on('close', () => done(null))
  })
}
