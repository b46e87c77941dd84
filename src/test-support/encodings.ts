// Text in the single-byte Russian encodings that banks and the Central Bank still write
// (windows-1251; ibm866, which 1C calls DOS). TextEncoder only writes UTF-8, so the byte of each
// character comes from the platform's own decoder, read backwards: exact for every character the
// encoding has, an error for one it lacks.

const tables = new Map<string, Map<string, number>>()

function table(encoding: 'windows-1251' | 'ibm866'): Map<string, number> {
  let t = tables.get(encoding)
  if (!t) {
    t = new Map()
    const decoder = new TextDecoder(encoding)
    for (let b = 0x80; b <= 0xff; b++) {
      const c = decoder.decode(new Uint8Array([b]))
      if (c !== '\uFFFD' && !t.has(c)) t.set(c, b)
    }
    tables.set(encoding, t)
  }
  return t
}

/** `text` as bytes in `encoding`; ASCII stays as it is. */
export function encodeSingleByte(text: string, encoding: 'windows-1251' | 'ibm866'): Uint8Array<ArrayBuffer> {
  const t = table(encoding)
  const out = new Uint8Array(new ArrayBuffer(text.length))
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const b = c < 0x80 ? c : t.get(text[i]!)
    if (b === undefined) throw new Error(`no ${encoding} byte for ${JSON.stringify(text[i])}`)
    out[i] = b
  }
  return out
}

export const encode1251 = (text: string) => encodeSingleByte(text, 'windows-1251')
