// POST /api/upload and GET /api/uploads/:name against the real server: size limit, type by
// content (not by name), unguessable storage, owner-only reads and signed links.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freshIp, readResult, registerUser, startServer, TEST_JWT_SECRET, type TestServer } from '../test-support/server'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.stop())

const MB = 1024 * 1024
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]
const bytes = (head: number[], total = head.length + 32) => {
  const b = new Uint8Array(total)
  b.set(head)
  for (let i = head.length; i < total; i++) b[i] = (i * 7) & 0xff
  return b
}
const ascii = (s: string) => [...Buffer.from(s, 'latin1')]

type Res = { status: number; body: any; headers: Headers }

async function upload(token: string | undefined, content: Uint8Array<ArrayBuffer> | string, filename: string, type = ''): Promise<Res> {
  const form = new FormData()
  form.append('file', new File([content], filename, { type }))
  const headers: Record<string, string> = { 'x-forwarded-for': freshIp() }
  if (token) headers.authorization = `Bearer ${token}`
  return readResult(await fetch(`${server.url}/api/upload`, { method: 'POST', headers, body: form }))
}

/** Links are absolute on PUBLIC_URL; the test server listens on a random port, so swap the origin. */
const local = (url: string) => {
  const u = new URL(url)
  return `${server.url}${u.pathname}${u.search}`
}
const err = (status: number, error: string) => ({ status, body: { success: false, error } })
const pick = (r: Res) => ({ status: r.status, body: r.body })
const nameOf = (url: string) => new URL(url).pathname.split('/').pop()!
const sign = (name: string, exp: number) => createHmac('sha256', TEST_JWT_SECRET).update(`upload:${name}:${exp}`).digest('base64url')

const TYPE_ERROR = 'Недопустимый тип файла. Можно загрузить изображения (PNG, JPEG, GIF, WebP), PDF, TXT, JSON и CSV'
const MISMATCH = 'Содержимое файла не соответствует его типу'

describe('accepted files: the type comes from the content', () => {
  test.each([
    ['PNG', bytes(PNG), 'photo.png', 'image/png'],
    ['JPEG', bytes([0xff, 0xd8, 0xff, 0xe0]), 'фото.jpg', 'image/jpeg'],
    ['JPEG saved as .jpeg', bytes([0xff, 0xd8, 0xff, 0xdb]), 'a.jpeg', 'image/jpeg'],
    ['GIF', bytes(ascii('GIF89a')), 'anim.gif', 'image/gif'],
    ['WebP', bytes([...ascii('RIFF'), 0x24, 0, 0, 0, ...ascii('WEBPVP8 ')]), 'x.webp', 'image/webp'],
    ['a JPEG named .png (still a picture)', bytes([0xff, 0xd8, 0xff, 0xe0]), 'really-jpeg.png', 'image/jpeg'],
    ['PDF', bytes(ascii('%PDF-1.7\n%âãÏÓ\n')), 'doc.pdf', 'application/pdf'],
    ['text', 'Привет, мир!\nВторая строка\t с табом', 'notes.txt', 'text/plain'],
    ['text with a BOM', '\ufeffтекст с BOM', 'bom.txt', 'text/plain'],
    ['JSON', '{"a": [1, 2, 3], "б": "в"}', 'data.json', 'application/json'],
    ['JSON without an extension', '[{"x": 1}]', 'payload', 'application/json'],
    ['CSV', 'имя;возраст\nАня;30\n', 'table.csv', 'text/csv'],
    ['Markdown', '# Заголовок\n\nтекст', 'README.md', 'text/markdown'],
  ])('%s → 201 as %s', async (_label, content, filename, mimetype) => {
    const u = await registerUser(server.url)
    const res = await upload(u.accessToken, content, filename, 'application/octet-stream')
    expect(res.status).toBe(201)
    const size = typeof content === 'string' ? Buffer.byteLength(content) : content.length
    expect(res.body).toEqual({ success: true, data: { id: expect.any(String), url: expect.any(String), filename, mimetype, size } })
    // The link serves exactly those bytes with the sniffed type.
    const got = await fetch(local(res.body.data.url))
    expect(got.status).toBe(200)
    expect(got.headers.get('content-type')).toStartWith(mimetype)
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(typeof content === 'string' ? new Uint8Array(Buffer.from(content)) : content)
  })

  test('the declared type of the form part is ignored: a text file sent as image/png is stored as text', async () => {
    const u = await registerUser(server.url)
    const res = await upload(u.accessToken, 'just text', 'plain.txt', 'image/png')
    expect(res.body.data.mimetype).toBe('text/plain')
  })
})

describe('refused files', () => {
  test.each([
    ['a text file named .png', 'это не картинка, а текст', 'photo.png', MISMATCH],
    ['a text file named .pdf', 'обычный текст', 'contract.pdf', MISMATCH],
    ['a PNG named .txt', bytes(PNG), 'notes.txt', MISMATCH],
    ['a PDF named .csv', bytes(ascii('%PDF-1.4\n')), 'table.csv', MISMATCH],
    ['a Linux executable renamed to .pdf', bytes([0x7f, ...ascii('ELF'), 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 'report.pdf', TYPE_ERROR],
    ['a Windows executable renamed to .txt', bytes([...ascii('MZ'), 0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff, 0, 0]), 'readme.txt', TYPE_ERROR],
    ['a Windows executable renamed to .png', bytes([...ascii('MZ'), 0x90, 0, 3, 0, 0, 0]), 'cat.png', TYPE_ERROR],
    ['a ZIP renamed to .csv', bytes([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]), 'data.csv', TYPE_ERROR],
    ['an SVG (scriptable)', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'icon.svg', TYPE_ERROR],
    ['an HTML page', '<html><script>alert(1)</script></html>', 'page.html', TYPE_ERROR],
    ['a shell script', '#!/bin/sh\nrm -rf /\n', 'run.sh', TYPE_ERROR],
    ['UTF-16 text', new Uint8Array(Buffer.from('\ufeffтекст', 'utf16le')), 'utf16.txt', TYPE_ERROR],
    ['invalid UTF-8', new Uint8Array([0x41, 0xc3, 0x28, 0x42, 0xff, 0xfe]), 'broken.txt', TYPE_ERROR],
    ['an empty file', '', 'empty.txt', 'Файл пустой'],
  ])('%s → 400', async (_label, content, filename, message) => {
    const u = await registerUser(server.url)
    expect(pick(await upload(u.accessToken, content, filename))).toEqual(err(400, message))
  })

  test('over 20 MB: 20 MB + 1 byte → 413 "Файл слишком большой (макс. 20MB)"; exactly 20 MB is accepted', async () => {
    const u = await registerUser(server.url)
    expect(pick(await upload(u.accessToken, bytes(PNG, 20 * MB + 1), 'big.png'))).toEqual(err(413, 'Файл слишком большой (макс. 20MB)'))
    const exact = await upload(u.accessToken, bytes(PNG, 20 * MB), 'exact.png')
    expect(exact.status).toBe(201)
    expect(exact.body.data.size).toBe(20 * MB)
  })

  test('a body far over the limit is refused from its Content-Length, before it is read', async () => {
    const u = await registerUser(server.url)
    const res = await upload(u.accessToken, bytes(PNG, 40 * MB), 'huge.png')
    expect(pick(res)).toEqual(err(413, 'Файл слишком большой (макс. 20MB)'))
  })

  test('no file field, a JSON body, or no session', async () => {
    const u = await registerUser(server.url)
    const form = new FormData()
    form.append('other', 'x')
    const noFile = await readResult(await fetch(`${server.url}/api/upload`, { method: 'POST', headers: { authorization: `Bearer ${u.accessToken}` }, body: form }))
    expect(pick(noFile)).toEqual(err(400, 'Выберите файл для загрузки'))
    const asText = new FormData()
    asText.append('file', 'not a file, a string field')
    const stringField = await readResult(await fetch(`${server.url}/api/upload`, { method: 'POST', headers: { authorization: `Bearer ${u.accessToken}` }, body: asText }))
    expect(pick(stringField)).toEqual(err(400, 'Выберите файл для загрузки'))
    const json = await readResult(
      await fetch(`${server.url}/api/upload`, { method: 'POST', headers: { authorization: `Bearer ${u.accessToken}`, 'content-type': 'application/json' }, body: '{"file":"x"}' }),
    )
    expect(pick(json)).toEqual(err(400, 'Выберите файл для загрузки'))
    expect(pick(await upload(undefined, 'text', 'a.txt'))).toEqual(err(401, 'Требуется авторизация'))
    expect(pick(await upload('garbage', 'text', 'a.txt'))).toEqual(err(401, 'Требуется авторизация'))
  })
})

describe('storage and access', () => {
  test('stored under DATA_DIR/uploads with a random name; the customer’s file name is never a path', async () => {
    const u = await registerUser(server.url)
    const res = await upload(u.accessToken, 'содержимое', '../../etc/passwd.txt')
    expect(res.status).toBe(201)
    expect(res.body.data.filename).toBe('passwd.txt')
    const name = nameOf(res.body.data.url)
    expect(name).toMatch(/^[A-Za-z0-9_-]{32}$/) // 192 random bits
    expect(readFileSync(join(server.dataDir, 'uploads', name), 'utf8')).toBe('содержимое')
    expect(readdirSync(join(server.dataDir, 'uploads')).some((f) => f.includes('passwd'))).toBe(false)
    expect(existsSync(join(server.dataDir, 'passwd.txt'))).toBe(false)
    // Two uploads of the same file get different names.
    const again = await upload(u.accessToken, 'содержимое', 'passwd.txt')
    expect(nameOf(again.body.data.url)).not.toBe(name)
  })

  test('owner by session: yes; another user: 404; nobody: 401', async () => {
    const owner = await registerUser(server.url)
    const other = await registerUser(server.url)
    const { url } = (await upload(owner.accessToken, 'личное', 'me.txt')).body.data
    const plain = `${server.url}/api/uploads/${nameOf(url)}`
    const asOwner = await fetch(plain, { headers: { authorization: `Bearer ${owner.accessToken}` } })
    expect(asOwner.status).toBe(200)
    expect(await asOwner.text()).toBe('личное')
    expect(pick(await readResult(await fetch(plain, { headers: { authorization: `Bearer ${other.accessToken}` } })))).toEqual(err(404, 'Файл не найден'))
    expect(pick(await readResult(await fetch(plain)))).toEqual(err(401, 'Требуется авторизация'))
    expect(pick(await readResult(await fetch(plain, { headers: { authorization: 'Bearer garbage' } })))).toEqual(err(401, 'Требуется авторизация'))
    expect(pick(await readResult(await fetch(`${server.url}/api/uploads/${'x'.repeat(32)}`, { headers: { authorization: `Bearer ${owner.accessToken}` } })))).toEqual(
      err(404, 'Файл не найден'),
    )
    expect(pick(await readResult(await fetch(`${server.url}/api/uploads/..%2F..%2Fgateway.db`, { headers: { authorization: `Bearer ${owner.accessToken}` } })))).toEqual(
      err(404, 'Файл не найден'),
    )
  })

  test('signed link: anyone (the model provider) may fetch it; a forged, altered, expired or borrowed signature is 403', async () => {
    const u = await registerUser(server.url)
    const { url } = (await upload(u.accessToken, bytes(PNG), 'pic.png')).body.data
    const second = (await upload(u.accessToken, bytes(PNG), 'pic2.png')).body.data.url
    const name = nameOf(url)
    const link = new URL(url)
    const exp = Number(link.searchParams.get('exp'))
    // valid for about a week
    expect(exp * 1000 - Date.now()).toBeGreaterThan(6 * 24 * 3600 * 1000)
    expect(exp * 1000 - Date.now()).toBeLessThanOrEqual(7 * 24 * 3600 * 1000 + 5000)
    const ok = await fetch(local(url))
    expect(ok.status).toBe(200)
    expect(ok.headers.get('content-type')).toBe('image/png')
    expect(ok.headers.get('x-content-type-options')).toBe('nosniff')

    const base = `${server.url}/api/uploads/${name}`
    const past = Math.floor(Date.now() / 1000) - 10
    const cases = [
      `${base}?exp=${exp}&sig=${'A'.repeat(43)}`, // forged
      `${base}?exp=${exp + 1}&sig=${link.searchParams.get('sig')}`, // lifetime extended
      `${base}?exp=${past}&sig=${sign(name, past)}`, // correctly signed but expired
      `${base}?exp=${exp}&sig=${new URL(second).searchParams.get('sig')}`, // another file's signature
      `${base}?exp=${exp}`, // signature missing
      `${base}?sig=${link.searchParams.get('sig')}`, // expiry missing
      `${base}?exp=abc&sig=x`,
    ]
    for (const c of cases) expect({ c, ...pick(await readResult(await fetch(c))) }).toEqual({ c, ...err(403, 'Ссылка на файл недействительна или устарела') })
    // A valid signature made with the server's secret for a future expiry works: the link is all the provider needs.
    const future = Math.floor(Date.now() / 1000) + 60
    expect((await fetch(`${base}?exp=${future}&sig=${sign(name, future)}`)).status).toBe(200)
  })

  test('text is served with a charset, a sandbox policy and the original (Cyrillic) name', async () => {
    const u = await registerUser(server.url)
    const { url } = (await upload(u.accessToken, '<script>alert(1)</script>', 'отчёт.txt')).body.data
    const res = await fetch(local(url))
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(res.headers.get('content-security-policy')).toContain('sandbox')
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="_____.txt"; filename*=UTF-8''${encodeURIComponent('отчёт.txt')}`)
  })
})

describe('only a PDF is served as a PDF (issue 22)', () => {
  const HTML_WITH_MAGIC = '<html><body><script>alert(document.cookie)</script><!-- %PDF-1.7 --></body></html>'

  test('an HTML file with %PDF- inside is not a PDF: stored and served as text under the sandbox policy, refused when named .pdf', async () => {
    const u = await registerUser(server.url)
    const res = await upload(u.accessToken, HTML_WITH_MAGIC, 'page')
    expect(res.status).toBe(201)
    expect(res.body.data.mimetype).toBe('text/plain')
    const served = await fetch(local(res.body.data.url))
    expect(served.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(served.headers.get('content-security-policy')).toBe("default-src 'none'; img-src 'self'; sandbox")
    // Junk before the header is not a PDF either (the header must come first).
    expect((await upload(u.accessToken, `\n\n%PDF-1.4\n${HTML_WITH_MAGIC}`, 'x')).body.data.mimetype).toBe('text/plain')
    expect(pick(await upload(u.accessToken, HTML_WITH_MAGIC, 'invoice.pdf'))).toEqual(err(400, MISMATCH))
  })

  test('a real PDF is served as application/pdf, with the same sandbox policy as every upload', async () => {
    const u = await registerUser(server.url)
    const { url, mimetype } = (await upload(u.accessToken, bytes(ascii('%PDF-1.7\n%âãÏÓ\n')), 'счёт.pdf')).body.data
    expect(mimetype).toBe('application/pdf')
    const served = await fetch(local(url))
    expect(served.headers.get('content-type')).toBe('application/pdf')
    expect(served.headers.get('content-security-policy')).toBe("default-src 'none'; img-src 'self'; sandbox")
    expect(served.headers.get('content-disposition')).toStartWith('inline;')

    // A file labelled PDF whose bytes are not one (sniffed under the old rule, or changed on disk) goes out as a download.
    writeFileSync(join(server.dataDir, 'uploads', nameOf(url)), HTML_WITH_MAGIC)
    const relabelled = await fetch(local(url))
    expect(relabelled.headers.get('content-type')).toBe('application/octet-stream')
    expect(relabelled.headers.get('content-disposition')).toStartWith('attachment;')
    expect(relabelled.headers.get('content-security-policy')).toBe("default-src 'none'; img-src 'self'; sandbox")
  })
})

describe('UPLOADS_DIR', () => {
  test('the bytes live in the storage instances share, not in DATA_DIR, and are served from there', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'gateway-uploads-'))
    const own = await startServer({ UPLOADS_DIR: shared })
    try {
      const u = await registerUser(own.url)
      const form = new FormData()
      form.append('file', new File(['общий диск'], 'shared.txt'))
      const res = await readResult(
        await fetch(`${own.url}/api/upload`, { method: 'POST', headers: { 'x-forwarded-for': freshIp(), authorization: `Bearer ${u.accessToken}` }, body: form }),
      )
      expect(res.status).toBe(201)
      const name = nameOf(res.body.data.url)
      expect(readFileSync(join(shared, 'uploads', name), 'utf8')).toBe('общий диск')
      expect(existsSync(join(own.dataDir, 'uploads', name))).toBe(false)
      const back = await fetch(`${own.url}/api/uploads/${name}`, { headers: { authorization: `Bearer ${u.accessToken}` } })
      expect([back.status, await back.text()]).toEqual([200, 'общий диск'])
    } finally {
      await own.stop()
      rmSync(shared, { recursive: true, force: true })
    }
  })
})
