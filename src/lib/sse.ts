// Server-sent events: split a byte stream into complete events as they arrive, without waiting
// for more than the event at hand (relaying must never buffer beyond one event).

export class SseSplitter {
  private buf = ''
  private readonly decoder = new TextDecoder()

  /** Feeds bytes; returns the events completed by them (each without its trailing blank line). */
  push(bytes: Uint8Array): string[] {
    this.buf += this.decoder.decode(bytes, { stream: true })
    if (this.buf.includes('\r')) this.buf = this.buf.replace(/\r\n?/g, '\n')
    const events: string[] = []
    let idx: number
    while ((idx = this.buf.indexOf('\n\n')) >= 0) {
      events.push(this.buf.slice(0, idx))
      this.buf = this.buf.slice(idx + 2)
    }
    return events
  }

  /** Whatever is left when the stream ends (an event without its blank line). */
  rest(): string {
    const r = this.buf + this.decoder.decode()
    this.buf = ''
    return r.trim()
  }
}

/** The JSON payload of a `data:` event, or undefined for comments, [DONE] and other fields. */
export function dataOf(event: string): string | undefined {
  if (!event.startsWith('data:')) {
    const i = event.indexOf('\ndata:')
    if (i < 0) return undefined
    event = event.slice(i + 1)
  }
  const payload = event.slice(5).trimStart()
  return payload === '[DONE]' ? undefined : payload
}

export const sseData = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`
