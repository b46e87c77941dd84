// What the demo upstream's own tests share (demo.test.ts, messages.test.ts,
// responses-embeddings.test.ts): a running fake with its catalogue, a polling wait, and the loop
// that reads an SSE body frame by frame.
import { type DemoUpstreamOptions, type RunningFakeUpstream, startFakeUpstream } from './index'

type Json = Record<string, any>

/** Starts the fake and reads its whole catalogue (every output modality), keyed by model id. */
export async function startDemoForTest(options: DemoUpstreamOptions): Promise<{ up: RunningFakeUpstream; models: Map<string, Json> }> {
  const up = await startFakeUpstream(options)
  const headers: Record<string, string> = options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}
  const all = (await (await fetch(`${up.url}/models?output_modalities=all`, { headers })).json()) as Json
  return { up, models: new Map(all.data.map((m: Json) => [m.id, m])) }
}

/** Polls `probe` every 10 ms until it returns something, for at most `timeoutMs`. */
export async function until<T>(probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = probe()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error('condition not reached in time')
    await Bun.sleep(10)
  }
}

/** Reads an SSE body, turning each blank-line-separated frame into an event with `parse`; `stopAfter` cancels the body once it returns true. */
export async function readSseFrames<E>(res: Response, parse: (frame: string) => E, stopAfter?: (events: E[]) => boolean): Promise<E[]> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const events: E[] = []
  let buffer = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    buffer += decoder.decode(value, { stream: true })
    let cut: number
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, cut)
      buffer = buffer.slice(cut + 2)
      events.push(parse(frame))
    }
    if (stopAfter?.(events)) {
      await reader.cancel()
      break
    }
  }
  return events
}
