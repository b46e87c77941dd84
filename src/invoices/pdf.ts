// The page toolkit of the documents (invoice, act): an A4 pdfkit document with DejaVu Sans embedded
// (Cyrillic and the ruble sign, from the dejavu-fonts-ttf package: no system font, no browser), and
// bordered tables whose rows grow with their text and move to the next page whole.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import PDFDocument from 'pdfkit'

export type Pdf = PDFKit.PDFDocument

const fontFile = (name: string) => fileURLToPath(import.meta.resolve(`dejavu-fonts-ttf/ttf/${name}`))
// Read once: every document embeds a subset of the same two faces.
let fonts: { regular: Buffer; bold: Buffer } | undefined
const loadFonts = () => (fonts ??= { regular: readFileSync(fontFile('DejaVuSansCondensed.ttf')), bold: readFileSync(fontFile('DejaVuSansCondensed-Bold.ttf')) })

export const PAGE = { margin: 42, width: 595.28, height: 841.89 } as const
/** Left edge and width of the text block. */
export const LEFT = PAGE.margin
export const WIDTH = PAGE.width - 2 * PAGE.margin
const BOTTOM = PAGE.height - PAGE.margin

/**
 * A new A4 document and the promise of its bytes once `doc.end()` is called. `createdAt` is the
 * document's own date (the invoice's issue): with it the same data gives the same bytes every time,
 * so a document rendered on demand never changes after it was issued.
 */
export function newPdf(meta: { title: string; author: string; createdAt: Date }): { doc: Pdf; bytes: Promise<Uint8Array> } {
  const { regular, bold } = loadFonts()
  const doc = new PDFDocument({
    size: 'A4',
    margin: PAGE.margin,
    info: { Title: meta.title, Author: meta.author, Creator: 'AI Gateway', CreationDate: meta.createdAt },
    lang: 'ru-RU',
    displayTitle: true,
  })
  doc.registerFont('regular', regular)
  doc.registerFont('bold', bold)
  doc.font('regular').fontSize(9).lineGap(1)
  const chunks: Uint8Array[] = []
  doc.on('data', (chunk: Uint8Array) => chunks.push(chunk))
  const bytes = new Promise<Uint8Array>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)))
    doc.on('error', reject)
  })
  return { doc, bytes }
}

export type Font = 'regular' | 'bold'

/** Text in a box from (x, y); returns the y below it. */
export function textAt(doc: Pdf, text: string, x: number, y: number, width: number, opts: { font?: Font; size?: number; align?: 'left' | 'right' | 'center' } = {}): number {
  doc.font(opts.font ?? 'regular').fontSize(opts.size ?? 9)
  doc.text(text, x, y, { width, align: opts.align ?? 'left' })
  return doc.y
}

export const heightOf = (doc: Pdf, text: string, width: number, font: Font = 'regular', size = 9) =>
  doc
    .font(font)
    .fontSize(size)
    .heightOfString(text || ' ', { width })

/** A horizontal rule across the text block. */
export function rule(doc: Pdf, y: number, thickness = 1): number {
  doc
    .save()
    .lineWidth(thickness)
    .moveTo(LEFT, y)
    .lineTo(LEFT + WIDTH, y)
    .stroke()
    .restore()
  return y + thickness
}

/** Starts a new page when `height` more points do not fit below `y`; returns where to go on. */
export function ensureRoom(doc: Pdf, y: number, height: number): number {
  if (y + height <= BOTTOM) return y
  doc.addPage()
  return PAGE.margin
}

export type Column = { header: string; width: number; align?: 'left' | 'right' | 'center' }

const PAD = 3

/**
 * A bordered table across the text block: a bold header row on a light fill, then the rows, each as
 * tall as its tallest cell. A row that does not fit goes to the next page, under a repeated header.
 * Returns the y below the table.
 */
export function table(doc: Pdf, y: number, columns: Column[], rows: string[][], size = 9): number {
  const drawRow = (cells: string[], top: number, font: Font, fill?: string) => {
    const height = Math.max(...cells.map((c, i) => heightOf(doc, c, columns[i]!.width - 2 * PAD, font, size))) + 2 * PAD
    let x = LEFT
    for (const [i, col] of columns.entries()) {
      if (fill) doc.save().rect(x, top, col.width, height).fill(fill).restore()
      doc.save().lineWidth(0.6).rect(x, top, col.width, height).stroke().restore()
      textAt(doc, cells[i] ?? '', x + PAD, top + PAD, col.width - 2 * PAD, { font, size, align: col.align })
      x += col.width
    }
    return top + height
  }
  const headers = columns.map((c) => c.header)
  const headerHeight = Math.max(...headers.map((h, i) => heightOf(doc, h, columns[i]!.width - 2 * PAD, 'bold', size))) + 2 * PAD
  y = ensureRoom(doc, y, headerHeight * 2)
  y = drawRow(headers, y, 'bold', '#eeeeee')
  for (const row of rows) {
    const height = Math.max(...row.map((c, i) => heightOf(doc, c, columns[i]!.width - 2 * PAD, 'regular', size))) + 2 * PAD
    const next = ensureRoom(doc, y, height)
    if (next !== y) y = drawRow(headers, next, 'bold', '#eeeeee')
    y = drawRow(row, y, 'regular')
  }
  return y
}

/** Label–value lines (Поставщик: …, Покупатель: …) with the values aligned in one column. */
export function labelled(doc: Pdf, y: number, lines: Array<[label: string, value: string]>, labelWidth = 118): number {
  for (const [label, value] of lines) {
    const height = Math.max(heightOf(doc, label, labelWidth - 6), heightOf(doc, value, WIDTH - labelWidth, 'bold'))
    y = ensureRoom(doc, y, height)
    textAt(doc, label, LEFT, y, labelWidth - 6)
    textAt(doc, value, LEFT + labelWidth, y, WIDTH - labelWidth, { font: 'bold' })
    y += height + 5
  }
  return y
}

/** Right-aligned totals under a table: «Итого:  1 200,00». */
export function totals(doc: Pdf, y: number, lines: Array<[label: string, value: string]>, valueWidth = 85): number {
  for (const [label, value] of lines) {
    y = ensureRoom(doc, y, 14)
    textAt(doc, label, LEFT, y, WIDTH - valueWidth - 8, { font: 'bold', align: 'right' })
    textAt(doc, value, LEFT + WIDTH - valueWidth, y, valueWidth - PAD, { font: 'bold', align: 'right' })
    y += 14
  }
  return y
}

/** «Иванов И. И.» ← «Иванов Иван Иванович»: how a person signs under a document. */
export function shortPersonName(full: string): string {
  const [surname, ...names] = full
    .replace(/^ИП\s+/, '')
    .trim()
    .split(/\s+/)
  return [surname, ...names.map((n) => `${n[0]}.`)].join(' ')
}
