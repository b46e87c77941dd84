// Test-only fault directives: `[[fault:NAME]]` in the last user message makes the demo misbehave
// the way OpenRouter can. Honoured only when the upstream is created with `faults: true`;
// otherwise a directive is just text. Several directives combine (e.g. slow + nocost). For prompts a
// test does not write itself (the blog's), `failNext` in index.ts arms a fault for the next match;
// for a router that fails whatever it is asked, `outage()` (index.ts, also over HTTP at /__faults)
// fails every inference request (or N of them, or a share) with an HTTP error, a hang before the
// head or a drop mid-answer, and `refuse()` stops the fake listening (connection refused).
//
//   http500 / http502 / http503   5xx error body before any generation (503 with Retry-After: 1)
//   http429                       429 rate_limit_exceeded, Retry-After: 1
//   http400                       400 invalid_request
//   rejected502                   502 "Provider returned error" whose metadata names the provider and
//                                 carries its raw 400 (context length exceeded): the request's
//                                 content failed, not the router nor the provider
//   provider502                   502 "Provider returned error" naming the provider (OpenAI), its raw
//                                 error a connection reset: that model's provider is down
//   credits402                    402 "Insufficient credits…", metadata.error_type payment_required
//   timeout                       never answers; on client abort the generation is recorded as cancelled
//   error200                      JSON: 200 + partial content, finish_reason "error", choices[0].error;
//                                 stream: same as midstream
//   toplevel200                   JSON: 200 + {error:{code:500,…}}; stream: keep-alive, then one
//                                 `data: {error}` event and the end of the stream
//   midstream                     stream: 3 token chunks, the error chunk of protocols.md 1.5, end
//                                 (no usage, no [DONE]); JSON: same as error200
//   break                         3 token chunks (JSON: half the body), then the connection is reset
//   slow                          200 ms per token, ≥ 60 tokens; the only fault that delays a JSON answer
//   nocost                        usage without `cost` and `cost_details`
//   empty                         content "" and 0 completion tokens (no image either)
//   long                          ≥ 200 tokens, still cut by max_tokens
//   fallback                      with fallbacks (`models: [...]`), the LAST candidate answers (and is
//                                 billed) instead of the first, as if the others had failed
//   overbill                      the reported usage.cost (and cost_details), generation total_cost
//                                 and the key's usage are 10× the true cost: a charge the caller
//                                 could not foresee from the prices
//   nostats                       the generation is never published to GET /generation (speech, whose
//                                 cost is read there only; a dropped stream's reconciliation)
//   noheader                      a streamed answer without X-Generation-Id: the generation is named
//                                 only in its events (chat's gen- ids, Responses' resp_<id without gen->)
//   linger                        Responses stream: it stays open LINGER_MS after its final event, as
//                                 a router's may (the end of the stream comes after the answer)
// HTTP-error faults create no generation; the others record one in GET /generation.
import { openRouterError } from './wire'

export const FAULTS = [
  'http500',
  'http502',
  'http503',
  'http429',
  'http400',
  'rejected502',
  'provider502',
  'credits402',
  'timeout',
  'error200',
  'toplevel200',
  'midstream',
  'break',
  'slow',
  'nocost',
  'empty',
  'long',
  'fallback',
  'overbill',
  'nostats',
  'noheader',
  'linger',
] as const
export type Fault = (typeof FAULTS)[number]

const isFault = (name: string): name is Fault => (FAULTS as readonly string[]).includes(name)

const DIRECTIVE = /\[\[fault:([a-z0-9]+)\]\]/gi

export function parseFaults(text: string): Set<Fault> {
  const found = new Set<Fault>()
  for (const m of text.matchAll(DIRECTIVE)) {
    const name = m[1]!.toLowerCase()
    if (isFault(name)) found.add(name)
  }
  return found
}

/** The text without its directives, so a faulty request still reads naturally in the reply. */
export const stripDirectives = (text: string) => text.replace(DIRECTIVE, '').replace(/\s+/g, ' ').trim()

/** Faults answered with an HTTP error before any generation starts (no SSE, no generation record). */
const HTTP_FAULTS: Partial<Record<Fault, () => Response>> = {
  http500: () => openRouterError(500, 'Internal Server Error'),
  http502: () => openRouterError(502, 'Provider returned error', { error_type: 'provider_unavailable' }),
  http503: () =>
    openRouterError(
      503,
      'No available providers could handle the request',
      { error_type: 'provider_overloaded' },
      {
        'Retry-After': '1',
      },
    ),
  http429: () =>
    openRouterError(
      429,
      'Rate limit exceeded: too many requests',
      { error_type: 'rate_limit_exceeded' },
      {
        'Retry-After': '1',
      },
    ),
  http400: () => openRouterError(400, 'Invalid request: demo fault', { error_type: 'invalid_request' }),
  // As OpenRouter relays a provider's refusal it does not map to a 4xx (metadata.raw: the provider's body).
  rejected502: () =>
    openRouterError(502, 'Provider returned error', {
      provider_name: 'OpenAI',
      raw: JSON.stringify({
        error: {
          message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 391402 tokens.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      }),
    }),
  provider502: () =>
    openRouterError(502, 'Provider returned error', {
      provider_name: 'OpenAI',
      raw: 'upstream connect error or disconnect/reset before headers. reset reason: connection termination',
    }),
  credits402: () =>
    openRouterError(402, 'Insufficient credits. Add more using https://openrouter.ai/credits', {
      error_type: 'payment_required',
    }),
}

export function httpFaultResponse(faults: Set<Fault>): Response | null {
  for (const f of faults) {
    const make = HTTP_FAULTS[f]
    if (make) return make()
  }
  return null
}

/** How many pieces a faulty generation produces before it fails (`midstream`, `break`, `error200`). */
export const PIECES_BEFORE_FAILURE = 3
/** Per-token delay under `slow`, and the minimum reply lengths of `slow` and `long`. */
export const SLOW_TOKEN_DELAY_MS = 200
export const SLOW_MIN_TOKENS = 60
export const LONG_MIN_TOKENS = 200
/** How many times the true cost `overbill` reports. */
export const OVERBILL_FACTOR = 10n
