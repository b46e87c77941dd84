// What every command needs: the resolved server, the config store and the API client.
import type { Command } from 'commander'
import { InvalidArgumentError } from 'commander'
import { type Api, createApi } from './api'
import { type ConfigStore, createConfigStore, resolveServer } from './config'
import { CliError, EXIT } from './errors'

export type Context = { server: string; store: ConfigStore; api: Api }

export function context(cmd: Command): Context {
  const { server: flag } = cmd.optsWithGlobals<{ server?: string }>()
  const store = createConfigStore()
  const server = resolveServer(flag, store.read())
  let url: URL
  try {
    url = new URL(server)
  } catch {
    throw new CliError(`Некорректный адрес сервера: ${server}`, 'пример: --server http://localhost:3000', EXIT.usage)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`Адрес сервера должен начинаться с http:// или https://: ${server}`, undefined, EXIT.usage)
  return { server, store, api: createApi(server, store) }
}

export const print = (text: string): void => void process.stdout.write(`${text}\n`)
export const printJson = (data: unknown) => print(JSON.stringify(data, null, 2))

// ─── option parsers: commander reports their errors as usage errors (exit 2) ─────────────────

export function positiveInt(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('нужно целое положительное число')
  return n
}

export function temperature(value: string): number {
  const n = Number(value.replace(',', '.'))
  if (!Number.isFinite(n) || n < 0 || n > 2) throw new InvalidArgumentError('температура — число от 0 до 2')
  return n
}

/** One of a few words (any case); the error lists them after `what`. */
export const oneOf =
  <T extends string>(values: readonly T[], what: string) =>
  (value: string): T => {
    const v = value.toLowerCase() as T
    if (!values.includes(v)) throw new InvalidArgumentError(`${what}: ${values.join(', ')}`)
    return v
  }
