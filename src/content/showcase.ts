// Which nine catalogue models the landing names: the newest model of each well-known provider
// first, then the newest of the rest. Pure: the server uses it for the HTML crawlers get.

export interface ShowcaseModel {
  id: string
  name: string
  /** What it costs in rubles, as the catalogue compares models ('0,43 ₽ / 1,29 ₽ за 1M токенов'); absent without a rate. */
  price?: string
}

export const SHOWCASE_SIZE = 9

const PROVIDERS = ['openai', 'anthropic', 'google', 'deepseek', 'meta-llama', 'mistralai', 'x-ai', 'qwen', 'black-forest-labs']

const providerOf = (id: string) => id.split('/', 1)[0] ?? id
const isFree = (m: ShowcaseModel) => m.id.endsWith(':free')
/** Routers and aliases are not models to show off. */
const isRouter = (m: ShowcaseModel) => providerOf(m.id) === 'openrouter' || /(^|\/)auto$/.test(m.id)

/** `models` in catalogue order (newest first); returns at most nine, no duplicates. */
export function pickShowcase<T extends ShowcaseModel>(models: readonly T[], size = SHOWCASE_SIZE): T[] {
  const picked: T[] = []
  const taken = new Set<string>()
  const take = (m: T | undefined) => {
    if (!m || taken.has(m.id) || picked.length >= size) return
    taken.add(m.id)
    picked.push(m)
  }
  const pool = models.filter((m) => !isRouter(m))
  for (const provider of PROVIDERS) take(pool.find((m) => providerOf(m.id) === provider && !isFree(m)) ?? pool.find((m) => providerOf(m.id) === provider))
  for (const m of pool) if (!isFree(m)) take(m)
  for (const m of pool) take(m)
  for (const m of models) take(m)
  return picked
}

/** 'OpenAI: GPT-4o' → { provider: 'OpenAI', model: 'GPT-4o' } */
export function splitModelName(name: string): { provider: string | null; model: string } {
  const i = name.indexOf(': ')
  return i > 0 ? { provider: name.slice(0, i), model: name.slice(i + 2) } : { provider: null, model: name }
}
