// How each protocol's answers are read for billing and rewritten with our charge: the non-streamed
// body (its usage, a 200 that carries an error, the model that answered) and the SSE stream (which
// events can pass untouched, which carry the usage or an error, how a failure is told to the client).
import { formatMicros, microsToRub } from '../lib/money'

/** Usage in the router's chat names (each protocol's own names are mapped onto these). */
export type Usage = {
  prompt_tokens?: number
  completion_tokens?: number
  total_tokens?: number
  cost?: number
  /** Pictures delivered (ours, for the fallback charge when no cost came back). */
  pictures?: number
  [k: string]: unknown
}

/**
 * What a whole answer says: an error inside a 200, the usage, the answering model, the generation
 * id, and the answer's own id when the protocol's differs from the generation's (msg_…, resp_…).
 */
export type Read = { error?: string; usage?: Usage; model?: unknown; id?: string; responseId?: string }

/**
 * What one stream event means: pass it on (maybe a piece of the answer), an error, or the final usage.
 * `promptTokens`: the prompt as the router counted it, said before the end (Messages' message_start).
 */
export type Seen =
  | 'drop'
  | { id?: string; responseId?: string; piece?: boolean; error?: string; usage?: undefined; promptTokens?: number }
  | {
      id?: string
      responseId?: string
      usage: Usage
      model?: unknown
      error?: undefined
      piece?: undefined
      promptTokens?: undefined
      render: (usage: Usage, chargedMicros: number) => string
    }

export type StreamReader = {
  /** A block whose events need no reading (no usage, no error): forwarded as it came. */
  plain(block: string): boolean
  /** Answer pieces in a plain block (the fallback charge counts them). */
  pieces(block: string): number
  /** `needId`: the stream's generation id is not known yet (no X-Generation-Id header): name it from the events if they can. */
  inspect(event: string, data: string, needId: boolean): Seen
  /** The protocol's stream event for a failure on our side. */
  errorEvent(message: string): string
  keepAlive: string
}

export type Wire = {
  /** The router's path. */
  path: string
  answer(json: Record<string, unknown>): Read
  /** The answer as the customer gets it: usage with the charge, never our USD cost. */
  withCharge(json: Record<string, unknown>, usage: Usage | undefined, chargedMicros: number): unknown
  /** A reader for one stream (it may keep state between events). */
  reader(): StreamReader
}

/**
 * What the customer sees of usage: tokens and the charge, never our upstream cost in USD. `cost`
 * is where OpenRouter clients read the price: here it is the charge in rubles, our account currency.
 */
export function chargedUsage<U extends Record<string, unknown>>(usage: U | undefined, chargedMicros: number) {
  // An aggregator's `balance` is our account's there: never the customer's business.
  const { cost: _cost, cost_details: _details, is_byok: _byok, pictures: _pictures, balance: _balance, ...rest } = usage ?? ({} as U)
  return { ...rest, cost: microsToRub(chargedMicros), cost_rub: formatMicros(chargedMicros) }
}

/**
 * The router's generation id behind an answer's own id, for its /generation record when no
 * X-Generation-Id header came: a gen-… id is one; a Responses id is resp_ + the generation id without
 * its gen- (the router links them). Anything else (Messages' msg_…) names no generation.
 */
export function generationIdOf(id: unknown): string | undefined {
  if (typeof id !== 'string') return undefined
  if (id.startsWith('gen-')) return id
  return id.startsWith('resp_') && id.length > 5 ? `gen-${id.slice(5)}` : undefined
}

/** Whether `needle` starts inside text[from, to). */
const within = (text: string, needle: string, from: number, to: number) => {
  const at = text.indexOf(needle, from)
  return at >= 0 && at < to
}

/** Counts the events of a block that contain any of the needles. */
export function countEvents(block: string, needles: string[]): number {
  let n = 0
  for (let start = 0, end: number; (end = block.indexOf('\n\n', start)) >= 0; start = end + 2) if (needles.some((x) => within(block, x, start, end))) n++
  return n
}

/** One event's JSON, or undefined when it is not JSON. `T`: the fields the caller reads (as the protocol documents them, not checked). */
export const parseEvent = <T extends object = Record<string, unknown>>(data: string): T | undefined => {
  try {
    return JSON.parse(data) as T
  } catch {
    return undefined
  }
}
