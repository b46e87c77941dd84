// Server-sent events: split a byte stream into complete events as they arrive, without waiting
// for more than the event at hand (relaying must never buffer beyond one event).

export class SseSplitter {
  private buf = ''
  private readonly decoder = new TextDecoder()

  /**
   * Feeds bytes; returns the events completed by them as one block of text, each event followed by
   * its blank line ('' when none completed). The relay forwards ordinary blocks as they are.
   */
  pushBlock(bytes: Uint8Array): string {
    this.buf += this.decoder.decode(bytes, { stream: true })
    if (this.buf.includes('\r')) this.buf = this.buf.replace(/\r\n?/g, '\n')
    let end = 0
    for (let idx: number; (idx = this.buf.indexOf('\n\n', end)) >= 0; ) end = idx + 2
    if (end === 0) return ''
    const block = this.buf.slice(0, end)
    this.buf = this.buf.slice(end)
    return block
  }

  /** Whatever is left when the stream ends (an event without its blank line). */
  rest(): string {
    const r = this.buf + this.decoder.decode()
    this.buf = ''
    return r.trim()
  }
}

/** The events of a block from pushBlock, each without its trailing blank line. */
export function eventsOf(block: string): string[] {
  const events: string[] = []
  for (let start = 0, idx: number; (idx = block.indexOf('\n\n', start)) >= 0; start = idx + 2) events.push(block.slice(start, idx))
  return events
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
