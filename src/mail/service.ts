// Outgoing letters: through SMTP when SMTP_URL is set, otherwise written to DATA_DIR/outbox
// (an .eml a mail client opens, plus a .json twin that scripts and tests read).

import { mkdirSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import nodemailer from 'nodemailer'
import type { Config } from '../config'
import { newId } from '../lib/crypto'

/** A file sent with a letter (an invoice's PDF). */
export type Attachment = { filename: string; content: Uint8Array; contentType: string }
export type Letter = { to: string; subject: string; text: string; html: string; attachments?: Attachment[] }
export type Mailer = { send(letter: Letter): Promise<void>; readonly mode: 'smtp' | 'outbox' }

/** nodemailer's form of a letter: attachments as Buffers. */
const outgoing = ({ attachments, ...letter }: Letter) => ({
  ...letter,
  ...(attachments?.length ? { attachments: attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: Buffer.from(a.content) })) } : {}),
})

export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>): Mailer {
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport(config.smtpUrl)
    return {
      mode: 'smtp',
      async send(letter) {
        await transport.sendMail({ from: config.mailFrom, ...outgoing(letter) })
      },
    }
  }
  const outbox = join(config.dataDir, 'outbox')
  mkdirSync(outbox, { recursive: true })
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  return {
    mode: 'outbox',
    async send(letter) {
      const info = await transport.sendMail({ from: config.mailFrom, ...outgoing(letter) })
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${newId()}`
      await Bun.write(join(outbox, `${name}.eml`), info.message as Buffer)
      // The twin names the attachments; their bytes are in the .eml.
      const { attachments, ...rest } = letter
      const files = attachments?.map((a) => ({ filename: a.filename, contentType: a.contentType, size: a.content.byteLength }))
      // Written aside and renamed: whoever reads the outbox never sees half a letter.
      const twin = join(outbox, `${name}.json`)
      await Bun.write(`${twin}.part`, JSON.stringify({ from: config.mailFrom, ...rest, ...(files ? { attachments: files } : {}), createdAt: new Date().toISOString() }, null, 2))
      renameSync(`${twin}.part`, twin)
    },
  }
}
