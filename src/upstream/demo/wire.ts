// Response helpers in OpenRouter's wire shape: JSON bodies and `{error:{code, message, metadata?}}` errors
// (`code` is a number equal to the HTTP status, no `type`/`param`, see protocols.md 1.6).

export type ErrorMetadata = Record<string, unknown>

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  })
}

export function openRouterError(status: number, message: string, metadata?: ErrorMetadata, headers: Record<string, string> = {}): Response {
  const error = metadata ? { code: status, message, metadata } : { code: status, message }
  return json({ error }, status, headers)
}

/** `gen-<unix seconds>-<20 random alphanumerics>`, the form OpenRouter ids take. */
export function generationId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  const bytes = crypto.getRandomValues(new Uint8Array(20))
  const tail = Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('')
  return `gen-${Math.floor(Date.now() / 1000)}-${tail}`
}

/** Resolves after `ms`, or early (without throwing) once `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}

/** Resolves when `signal` aborts (never, if it never does). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
}
