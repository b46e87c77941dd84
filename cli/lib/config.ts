// The CLI's own config file: $XDG_CONFIG_HOME/ai-gateway/config.json (or ~/.config/…), mode 0600
// because it holds the session's tokens. Writes go through a temp file + rename, so a crash never
// leaves half a file and the permissions are right from the first byte.
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join } from 'node:path'
import { CliError } from './errors'

export type Session = { email: string; accessToken: string; refreshToken: string }
/** The team `gw team use` chose: keys, balance, usage and chat act in it (X-Team-Id). */
export type TeamContext = { id: string; name: string }
/** `server` is where the session (and the chosen team) belong: tokens are never sent anywhere else. */
export type ConfigData = { server?: string; session?: Session; team?: TeamContext }

export const DEFAULT_SERVER = 'http://localhost:3000'

export function configDir(env = process.env): string {
  // The XDG spec says to ignore a relative XDG_CONFIG_HOME.
  const base = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homedir(), '.config')
  return join(base, 'ai-gateway')
}

export const normalizeServer = (url: string) => url.trim().replace(/\/+$/, '')

export function createConfigStore(dir = configDir()) {
  const file = join(dir, 'config.json')
  const lockFile = join(dir, 'refresh.lock')

  function read(): ConfigData {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      return {}
    }
    try {
      const data = JSON.parse(text) as ConfigData
      return data && typeof data === 'object' ? data : {}
    } catch {
      throw new CliError(`Файл настроек повреждён: ${file}`, 'удалите его и войдите снова: `gw login`')
    }
  }

  function write(data: ConfigData) {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const tmp = `${file}.${process.pid}.tmp`
    writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 })
    chmodSync(tmp, 0o600) // the umask may have narrowed it further, never widened; make it exact
    renameSync(tmp, file)
  }

  return {
    file,
    read,
    write,
    update(change: (data: ConfigData) => ConfigData) {
      write(change(read()))
    },
    /**
     * Runs `fn` while holding a lock file: refresh tokens rotate and a reused one revokes the whole
     * session, so two gw processes (a chat and a `gw balance`) must not renew at the same time.
     */
    async withLock<T>(fn: () => Promise<T>): Promise<T> {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      const deadline = Date.now() + 10_000
      let held = false
      while (!held) {
        try {
          closeSync(openSync(lockFile, 'wx', 0o600))
          held = true
        } catch {
          // A lock older than 30 s belongs to a process that died mid-renewal.
          try {
            if (Date.now() - statSync(lockFile).mtimeMs > 30_000) rmSync(lockFile, { force: true })
          } catch {}
          if (Date.now() > deadline) break // proceed anyway rather than hang the user
          await Bun.sleep(50)
        }
      }
      try {
        return await fn()
      } finally {
        if (held) rmSync(lockFile, { force: true })
      }
    },
  }
}

export type ConfigStore = ReturnType<typeof createConfigStore>

/** --server, then the config file, then GW_SERVER, then localhost:3000 (the order the issue asks). */
export function resolveServer(flag: string | undefined, config: ConfigData, env = process.env): string {
  return normalizeServer(flag || config.server || env.GW_SERVER || DEFAULT_SERVER)
}
