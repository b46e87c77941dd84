// A real SMTP server (the smtp-server package) on a random loopback port; received letters land in `inbox`.

import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export type ReceivedLetter = { from: string; to: string[]; raw: string; subject: string; text: string }

/** Undoes quoted-printable (soft breaks and =XX bytes) so links and Russian text can be read. */
export function decodeQuotedPrintable(s: string): string {
  const bytes: number[] = []
  const src = s.replace(/=\r?\n/g, '')
  for (let i = 0; i < src.length; i++) {
    if (src[i] === '=' && /^[0-9A-F]{2}$/i.test(src.slice(i + 1, i + 3))) {
      bytes.push(parseInt(src.slice(i + 1, i + 3), 16))
      i += 2
    } else bytes.push(...Buffer.from(src[i]!, 'utf8'))
  }
  return Buffer.from(bytes).toString('utf8')
}

/** Decodes RFC 2047 encoded words (=?UTF-8?Q?…?= / ?B?) in a header value. */
const decodeHeader = (v: string) =>
  v.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_, enc: string, text: string) =>
    enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
  )

function parse(raw: string, from: string, to: string[]): ReceivedLetter {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/)
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ')
  const subject = decodeHeader(unfolded.match(/^Subject: (.*)$/im)?.[1] ?? '')
  // The text/plain part of nodemailer's multipart/alternative letter, in its transfer encoding.
  const body = rest.join('\n\n')
  const part = body.match(/(Content-Type: text\/plain[\s\S]*?)\r?\n\r?\n([\s\S]*?)\r?\n--/i)
  const encoding = part?.[1]?.match(/Content-Transfer-Encoding: (\S+)/i)?.[1]?.toLowerCase()
  const content = part?.[2] ?? body
  const text =
    encoding === 'base64' ? Buffer.from(content.replace(/\s+/g, ''), 'base64').toString('utf8') : encoding === 'quoted-printable' ? decodeQuotedPrintable(content) : content
  return { from, to, raw, subject, text }
}

export async function startSmtp() {
  const inbox: ReceivedLetter[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : ''
        inbox.push(
          parse(
            Buffer.concat(chunks).toString('utf8'),
            from,
            session.envelope.rcptTo.map((r) => r.address),
          ),
        )
        done()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    inbox,
    /** Waits for a letter to `to` (letters leave in the background after the API has answered). */
    async waitFor(to: string, timeoutMs = 5000): Promise<ReceivedLetter> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = inbox.find((m) => m.to.some((a) => a.toLowerCase() === to.toLowerCase()))
        if (found) return found
        if (Date.now() > deadline) throw new Error(`no letter for ${to} within ${timeoutMs} ms`)
        await Bun.sleep(25)
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
