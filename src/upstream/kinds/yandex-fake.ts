// A local fake of Yandex AI Studio's OpenAI-compatible API (reference providers-and-payments.md §2), strict
// where the real one is documented to be: folder-bound model URIs, the project header, only auto/none
// tool_choice, one string per embeddings call, and 400 for every field marked unsupported, so tests prove
// the client never sends them.

/** Fields Yandex marks unsupported, and the router's own routing fields: the fake refuses them all. */
export const YANDEX_UNSUPPORTED_FIELDS = [
  'web_search_options',
  'audio',
  'store',
  'stop',
  'seed',
  'service_tier',
  'stream_options',
  'logprobs',
  'top_logprobs',
  'n',
  'parallel_tool_calls',
  'frequency_penalty',
  'presence_penalty',
  'user',
  'metadata',
  'modalities',
  'prediction',
  'reasoning_effort',
  'models',
  'route',
  'provider',
  'plugins',
  'transforms',
  'usage',
] as const

export type FakeYandexLogEntry = { path: string; headers: Record<string, string>; body: unknown /** The client closed the connection before the answer ended. */; aborted: boolean }

export type FakeYandex = {
  baseUrl: string
  port: number
  stop(): Promise<void>
  log: FakeYandexLogEntry[]
  /** The next request (any path) gets this answer instead. */
  failNext(status: number, body: unknown, headers?: Record<string, string>): void
  /** The most embeddings requests it served at once. */
  stats: { embeddingsPeak: number }
}

/** The text the fake answers with when no tool is involved. */
export const FAKE_YANDEX_REPLY = 'Здравствуйте! Чем могу помочь сегодня?'
/** A last user message containing this makes the fake hang (streams after their first chunk) until the client leaves. */
export const FAKE_YANDEX_HANG = 'зависни'
export const FAKE_YANDEX_DIMENSIONS = 256

type Msg = { role?: string; content?: unknown; tool_calls?: unknown }

const text = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('')
      : ''

const yandexError = (status: number, message: string, headers: Record<string, string> = {}) =>
  Response.json(
    { error: { grpc_code: status === 401 ? 16 : 3, http_code: status, message, http_status: status === 401 ? 'Unauthorized' : 'Bad Request', details: [] } },
    { status, headers },
  )

/** The fake's own counts (not the client's estimate): a quarter of the characters, plus a fixed prompt overhead. */
const fakeUsage = (promptText: string, completionText: string) => {
  const prompt = Math.ceil([...promptText].length / 4) + 7
  const completion = Math.max(1, Math.ceil([...completionText].length / 4))
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: 0 } }
}

export async function startFakeYandex(opts: { apiKey?: string; folderId?: string; streamUsage?: boolean } = {}): Promise<FakeYandex> {
  const apiKey = opts.apiKey ?? 'fake-yandex-key'
  const folderId = opts.folderId ?? 'b1gfakefolder'
  const log: FakeYandexLogEntry[] = []
  const failures: Array<{ status: number; body: unknown; headers?: Record<string, string> }> = []
  const stats = { embeddingsPeak: 0 }
  let embeddingsInFlight = 0

  function check(req: Request, body: Record<string, unknown>, scheme: 'gpt' | 'emb'): Response | undefined {
    if (req.headers.get('authorization') !== `Bearer ${apiKey}`) return yandexError(401, 'Unknown api key')
    if (req.headers.get('openai-project') !== folderId) return yandexError(403, `Permission denied to folder ${req.headers.get('openai-project') ?? '(none)'}`)
    if (typeof body.model !== 'string' || !body.model.startsWith(`${scheme}://${folderId}/`))
      return yandexError(400, `model must be ${scheme}://${folderId}/<name>, got ${String(body.model)}`)
    return undefined
  }

  function chat(req: Request, body: Record<string, unknown>, entry: FakeYandexLogEntry): Response {
    for (const field of YANDEX_UNSUPPORTED_FIELDS) if (field in body) return yandexError(400, `${field}: [CURRENTLY NOT SUPPORTED]`)
    if (body.tool_choice !== undefined && body.tool_choice !== 'auto' && body.tool_choice !== 'none') return yandexError(400, 'tool_choice: only auto and none are supported')
    const messages = Array.isArray(body.messages) ? (body.messages as Msg[]) : []
    if (messages.length === 0) return yandexError(400, 'messages must not be empty')
    const last = messages[messages.length - 1]!
    const lastUser = text([...messages].reverse().find((m) => m.role === 'user')?.content)
    const tools = Array.isArray(body.tools) ? (body.tools as Array<{ function?: { name?: string } }>) : []
    const model = body.model as string
    const id = `chatcmpl-fake-${log.length}`
    const created = 1_700_000_000
    const hang = lastUser.includes(FAKE_YANDEX_HANG)

    let reply = FAKE_YANDEX_REPLY
    let call: { id: string; type: 'function'; function: { name: string; arguments: string } } | undefined
    if (last.role === 'tool') reply = `По данным инструмента: ${text(last.content)}`
    else if (tools.length > 0 && body.tool_choice !== 'none' && lastUser.includes('погода'))
      call = { id: 'call_fake_1', type: 'function', function: { name: tools[0]!.function?.name ?? 'tool', arguments: '{"city":"Москва"}' } }
    const promptText = messages.map((m) => text(m.content)).join('')
    const usage = fakeUsage(promptText, call ? call.function.name + call.function.arguments : reply)
    const finish = call ? 'tool_calls' : 'stop'

    if (body.stream !== true) {
      if (hang) return new Response(new ReadableStream({ start() {} })) // never answers
      const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: reply }
      return Response.json({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage })
    }

    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`
    const events = [chunk({ role: 'assistant', content: '' })]
    if (call) {
      events.push(chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }))
      events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }))
      events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '"Москва"}' } }] }))
    } else {
      const words = reply.split(/(?<= )/)
      for (const w of words) events.push(chunk({ content: w }))
    }
    events.push(chunk({}, finish, opts.streamUsage ? { usage } : {}))
    events.push('data: [DONE]\n\n')

    const encoder = new TextEncoder()
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          for (const [i, event] of events.entries()) {
            // Every event is cut in two at a byte, often inside a Cyrillic letter: the client must reassemble.
            const bytes = encoder.encode(event)
            const half = Math.floor(bytes.length / 2)
            controller.enqueue(bytes.subarray(0, half))
            await Bun.sleep(1)
            if (entry.aborted) return
            controller.enqueue(bytes.subarray(half))
            if (hang && i === 0) {
              await new Promise<void>((resolve) => req.signal.addEventListener('abort', () => resolve(), { once: true }))
              return
            }
          }
          controller.close()
        } catch {
          // the client left mid-write
        }
      },
      cancel() {
        entry.aborted = true
      },
    })
    return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })
  }

  async function embeddings(body: Record<string, unknown>): Promise<Response> {
    if (typeof body.input !== 'string') return yandexError(400, 'input must be a single string')
    if (body.encoding_format !== undefined && body.encoding_format !== 'float') return yandexError(400, 'encoding_format: only float is supported')
    if ('dimensions' in body) return yandexError(400, 'dimensions: [CURRENTLY NOT SUPPORTED]')
    embeddingsInFlight++
    stats.embeddingsPeak = Math.max(stats.embeddingsPeak, embeddingsInFlight)
    try {
      await Bun.sleep(10)
    } finally {
      embeddingsInFlight--
    }
    const n = [...body.input].length
    // The first component is the text's length, so a test can tell which text a vector is for.
    const embedding = Array.from({ length: FAKE_YANDEX_DIMENSIONS }, (_, i) => (i === 0 ? n : Math.round(Math.sin(n + i) * 1e4) / 1e4))
    const tokens = Math.ceil(n / 4) + 1
    return Response.json({ object: 'list', data: [{ object: 'embedding', index: 0, embedding }], model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } })
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      const url = new URL(req.url)
      const raw = await req.text()
      let body: unknown = raw
      try {
        body = JSON.parse(raw)
      } catch {}
      const entry: FakeYandexLogEntry = { path: url.pathname, headers: Object.fromEntries(req.headers), body, aborted: false }
      log.push(entry)
      req.signal.addEventListener('abort', () => {
        entry.aborted = true
      })
      const failure = failures.shift()
      if (failure) {
        const payload = typeof failure.body === 'string' ? failure.body : JSON.stringify(failure.body)
        return new Response(payload, { status: failure.status, headers: failure.headers })
      }
      if (req.method !== 'POST') return yandexError(405, 'method not allowed')
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return yandexError(400, 'body must be a JSON object')
      const json = body as Record<string, unknown>
      if (url.pathname === '/v1/chat/completions') return check(req, json, 'gpt') ?? chat(req, json, entry)
      if (url.pathname === '/v1/embeddings') return check(req, json, 'emb') ?? (await embeddings(json))
      return yandexError(404, `no route ${url.pathname}`)
    },
  })
  const port = server.port!
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    log,
    stats,
    failNext(status, body, headers) {
      failures.push({ status, body, headers })
    },
    stop: () => server.stop(true),
  }
}
