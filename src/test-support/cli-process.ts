// The terminal client (cli/) as a real process for the CLI's tests: `gw …` against a test server, each
// account with its own config folder (HOME), signed in through `gw login`. Shared by the suites that
// run gw end to end (keys-policy.test.ts, payments.test.ts).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { registerUser } from './server'

const ENTRY = new URL('../../cli/index.ts', import.meta.url).pathname

export type Run = { code: number; stdout: string; stderr: string }

/** gw processes against the server at `url()` (read when a process starts: the server may start later). */
export function gwProcesses(url: () => string) {
  const dirs: string[] = []

  function freshConfig() {
    const dir = mkdtempSync(join(tmpdir(), 'gw-cli-'))
    dirs.push(dir)
    return dir
  }

  async function cli(args: string[], config: string, server = url()): Promise<Run> {
    const proc = Bun.spawn(['bun', ENTRY, ...args], {
      env: { PATH: process.env.PATH!, HOME: config, XDG_CONFIG_HOME: config, GW_SERVER: server, NO_COLOR: '1' },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    return { code, stdout, stderr }
  }

  /** Its output, or the test fails with what gw said. */
  async function ok(args: string[], config: string): Promise<string> {
    const r = await cli(args, config)
    if (r.code !== 0) throw new Error(`gw ${args.join(' ')} → ${r.code}\n${r.stderr}`)
    return r.stdout
  }

  return {
    cli,
    ok,
    freshConfig,
    json: async <T>(args: string[], config: string): Promise<T> => JSON.parse(await ok([...args, '--json'], config)),
    /** A new account, signed in with gw in a config folder of its own. */
    async signedIn() {
      const user = await registerUser(url())
      const config = freshConfig()
      await ok(['login', '--email', user.email, '--password', user.password], config)
      return { ...user, config }
    },
    cleanup: () => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true })
    },
  }
}
