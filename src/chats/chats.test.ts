// Playground chats: /api/chats against the real server and database — ownership, validation,
// ordering, image messages stored as the spec's JSON string, attachments and their clean-up.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { startGateway } from '../test-support/gateway'
import { freshIp, readResult, registerUser } from '../test-support/server'

type Gateway = Awaited<ReturnType<typeof startGateway>>
let gw: Gateway

beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw.stop())

type Res = { status: number; body: any; headers: Headers }

async function call(method: string, path: string, opts: { body?: unknown; raw?: string; token?: string } = {}): Promise<Res> {
  const headers: Record<string, string> = { 'x-forwarded-for': freshIp() }
  if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] = 'application/json'
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  return readResult(await fetch(gw.url + path, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) }))
}

/** Links are absolute on PUBLIC_URL; the test server listens on a random port, so swap the origin. */
const local = (url: string) => {
  const u = new URL(url)
  return `${gw.url}${u.pathname}${u.search}`
}
const err = (status: number, error: string) => ({ status, body: { success: false, error } })
const pick = (r: Res) => ({ status: r.status, body: r.body })

async function newChat(token: string, title = 'Чат с OpenAI: GPT-3.5 Turbo', model = 'openai/gpt-3.5-turbo') {
  const res = await call('POST', '/api/chats', { body: { title, model }, token })
  expect(res.status).toBe(201)
  return res.body.data as { id: string; title: string; model: string; createdAt: string; updatedAt: string; messages: unknown[] }
}
const addMessage = (token: string, chatId: string, body: unknown) => call('POST', `/api/chats/${chatId}/messages`, { body, token })
const getChat = async (token: string, id: string) => {
  const res = await call('GET', `/api/chats/${id}`, { token })
  expect(res.status).toBe(200)
  return res.body.data
}
const listChats = async (token: string, query = '') => {
  const res = await call('GET', `/api/chats${query}`, { token })
  expect(res.status).toBe(200)
  return res.body.data as Array<{ id: string; title: string; model: string; createdAt: string; updatedAt: string }>
}

async function upload(token: string, bytes: Uint8Array<ArrayBuffer> | string, filename: string) {
  const form = new FormData()
  form.append('file', new File([bytes], filename))
  const res = await readResult(await fetch(`${gw.url}/api/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': freshIp() }, body: form }))
  expect(res.status).toBe(201)
  return res.body.data as { id: string; url: string; filename: string; mimetype: string; size: number }
}

describe('creating, listing, reading and deleting chats', () => {
  test('a new chat: 201 with title, model, times and no messages; then it is listed and readable', async () => {
    const u = await registerUser(gw.url)
    const res = await call('POST', '/api/chats', { body: { title: '  Чат с   OpenAI: GPT-4  ', model: 'openai/gpt-4' }, token: u.accessToken })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      success: true,
      data: { id: expect.any(String), title: 'Чат с OpenAI: GPT-4', model: 'openai/gpt-4', createdAt: expect.any(String), updatedAt: expect.any(String), messages: [] },
    })
    const chat = res.body.data
    expect(await listChats(u.accessToken)).toEqual([{ id: chat.id, title: chat.title, model: chat.model, createdAt: chat.createdAt, updatedAt: chat.updatedAt }])
    expect(await getChat(u.accessToken, chat.id)).toEqual(chat)
  })

  test('latest first: a new message moves its chat to the top; limit cuts the list', async () => {
    const u = await registerUser(gw.url)
    const ids: string[] = []
    for (let i = 1; i <= 12; i++) {
      ids.push((await newChat(u.accessToken, `Чат ${i}`)).id)
      await Bun.sleep(2)
    }
    expect((await listChats(u.accessToken)).map((c) => c.id)).toEqual([...ids].reverse())
    expect((await listChats(u.accessToken, '?limit=10')).map((c) => c.title)).toEqual(['Чат 12', 'Чат 11', 'Чат 10', 'Чат 9', 'Чат 8', 'Чат 7', 'Чат 6', 'Чат 5', 'Чат 4', 'Чат 3'])

    expect((await addMessage(u.accessToken, ids[0]!, { role: 'user', content: 'Снова здесь' })).status).toBe(201)
    const list = await listChats(u.accessToken, '?limit=10')
    expect(list[0]!.title).toBe('Чат 1')
    expect(list).toHaveLength(10)
    for (const bad of ['0', '101', 'abc', '1.5', '-1'])
      expect(pick(await call('GET', `/api/chats?limit=${bad}`, { token: u.accessToken }))).toEqual(err(400, 'limit должен быть целым числом от 1 до 100'))
  })

  test('the chat follows the model of its latest reply (a model switch continues the chat); a question or a reply without a model leaves it', async () => {
    const u = await registerUser(gw.url)
    const chat = await newChat(u.accessToken, 'Что такое квантовая запутанность', 'openai/gpt-3.5-turbo')
    expect((await addMessage(u.accessToken, chat.id, { role: 'user', content: 'Вопрос' })).status).toBe(201)
    expect((await addMessage(u.accessToken, chat.id, { role: 'assistant', content: 'Ответ', metadata: { model: 'openai/gpt-3.5-turbo' } })).status).toBe(201)
    expect((await addMessage(u.accessToken, chat.id, { role: 'user', content: 'А подробнее?' })).status).toBe(201)
    expect((await addMessage(u.accessToken, chat.id, { role: 'assistant', content: 'Подробнее', metadata: { model: 'anthropic/claude-3-haiku' } })).status).toBe(201)
    const read = await getChat(u.accessToken, chat.id)
    expect(read.model).toBe('anthropic/claude-3-haiku')
    expect(read.messages.map((m: { metadata: { model?: string } }) => m.metadata.model ?? null)).toEqual([null, 'openai/gpt-3.5-turbo', null, 'anthropic/claude-3-haiku'])
    expect((await listChats(u.accessToken)).find((c) => c.id === chat.id)!.model).toBe('anthropic/claude-3-haiku')
    // a picture drawn by another model moves it again; a reply that names no model does not
    const picture = JSON.stringify({ type: 'image-message', text: '', images: ['https://example.ru/a.png'], metadata: { model: 'black-forest-labs/flux.2-pro' } })
    expect((await addMessage(u.accessToken, chat.id, { role: 'assistant', content: picture })).status).toBe(201)
    expect((await getChat(u.accessToken, chat.id)).model).toBe('black-forest-labs/flux.2-pro')
    expect((await addMessage(u.accessToken, chat.id, { role: 'assistant', content: 'Без модели' })).status).toBe(201)
    expect((await getChat(u.accessToken, chat.id)).model).toBe('black-forest-labs/flux.2-pro')
  })

  test('messages come back in order, with role, type, content and empty images/files/metadata', async () => {
    const u = await registerUser(gw.url)
    const chat = await newChat(u.accessToken)
    const first = await addMessage(u.accessToken, chat.id, { role: 'user', content: 'Привет! Как дела?' })
    expect(first.status).toBe(201)
    expect(first.body.data).toEqual({
      id: expect.any(String),
      role: 'user',
      type: 'text',
      content: 'Привет! Как дела?',
      images: [],
      files: [],
      metadata: {},
      createdAt: expect.any(String),
    })
    const reply = await addMessage(u.accessToken, chat.id, {
      role: 'assistant',
      content: 'Отлично!\n\n```js\nconsole.log(1)\n```',
      metadata: { model: 'openai/gpt-3.5-turbo', costRub: '0.000123', totalTokens: 42 },
    })
    expect(reply.status).toBe(201)
    const read = await getChat(u.accessToken, chat.id)
    expect(read.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'Привет! Как дела?'],
      ['assistant', 'Отлично!\n\n```js\nconsole.log(1)\n```'],
    ])
    expect(read.messages[1].metadata).toEqual({ model: 'openai/gpt-3.5-turbo', costRub: '0.000123', totalTokens: 42 })
  })

  test('delete: 200, gone from the list, 404 afterwards; messages are deleted with it', async () => {
    const u = await registerUser(gw.url)
    const keep = await newChat(u.accessToken, 'Оставить')
    const gone = await newChat(u.accessToken, 'Удалить')
    await addMessage(u.accessToken, gone.id, { role: 'user', content: 'x' })
    expect(pick(await call('DELETE', `/api/chats/${gone.id}`, { token: u.accessToken }))).toEqual({ status: 200, body: { success: true, data: { ok: true } } })
    expect((await listChats(u.accessToken)).map((c) => c.id)).toEqual([keep.id])
    expect(pick(await call('GET', `/api/chats/${gone.id}`, { token: u.accessToken }))).toEqual(err(404, 'Чат не найден'))
    expect(pick(await call('DELETE', `/api/chats/${gone.id}`, { token: u.accessToken }))).toEqual(err(404, 'Чат не найден'))
    expect(await gw.read('select id from chat_messages where chat_id = ?', gone.id)).toEqual([])
  })

  test('truncate from a message (regenerate, edit and resend): it and every later one go, earlier ones stay; 404 for a stranger or an unknown message', async () => {
    const u = await registerUser(gw.url)
    const chat = await newChat(u.accessToken)
    const ids: string[] = []
    for (const [role, content] of [
      ['user', 'один'],
      ['assistant', 'ответ один'],
      ['user', 'два'],
      ['assistant', 'ответ два'],
    ] as const) {
      ids.push((await addMessage(u.accessToken, chat.id, { role, content })).body.data.id)
    }
    expect(pick(await call('DELETE', `/api/chats/${chat.id}/messages/${ids[2]}`, { token: u.accessToken }))).toEqual({ status: 200, body: { success: true, data: { removed: 2 } } })
    expect((await getChat(u.accessToken, chat.id)).messages.map((m: { content: string }) => m.content)).toEqual(['один', 'ответ один'])
    expect(pick(await call('DELETE', `/api/chats/${chat.id}/messages/${ids[2]}`, { token: u.accessToken }))).toEqual(err(404, 'Сообщение не найдено'))
    const other = await registerUser(gw.url)
    expect(pick(await call('DELETE', `/api/chats/${chat.id}/messages/${ids[0]}`, { token: other.accessToken }))).toEqual(err(404, 'Чат не найден'))
    expect((await getChat(u.accessToken, chat.id)).messages).toHaveLength(2)
  })
})

describe('a user sees only their own chats', () => {
  test('another user’s chat is 404 for read, delete and new messages, and stays untouched', async () => {
    const owner = await registerUser(gw.url)
    const other = await registerUser(gw.url)
    const chat = await newChat(owner.accessToken, 'Личное')
    await addMessage(owner.accessToken, chat.id, { role: 'user', content: 'секрет' })

    for (const id of [chat.id, '01900000-0000-7000-8000-000000000000', 'nope']) {
      expect(pick(await call('GET', `/api/chats/${id}`, { token: other.accessToken }))).toEqual(err(404, 'Чат не найден'))
      expect(pick(await call('DELETE', `/api/chats/${id}`, { token: other.accessToken }))).toEqual(err(404, 'Чат не найден'))
      expect(pick(await addMessage(other.accessToken, id, { role: 'user', content: 'я тут' }))).toEqual(err(404, 'Чат не найден'))
    }
    expect(await listChats(other.accessToken)).toEqual([])
    const read = await getChat(owner.accessToken, chat.id)
    expect(read.messages.map((m: any) => m.content)).toEqual(['секрет'])
  })

  test('another user’s upload cannot be attached to a message', async () => {
    const owner = await registerUser(gw.url)
    const thief = await registerUser(gw.url)
    const file = await upload(owner.accessToken, 'секретный текст', 'secret.txt')
    const chat = await newChat(thief.accessToken)
    for (const files of [[{ id: file.id }], [{ url: file.url }], [{ id: 'no-such-id' }], [{}]]) {
      expect(pick(await addMessage(thief.accessToken, chat.id, { role: 'user', content: 'смотри', files }))).toEqual(err(400, 'Прикреплённый файл не найден. Загрузите его снова.'))
    }
    expect((await getChat(thief.accessToken, chat.id)).messages).toEqual([])
  })

  test('every route needs a session: 401 without a token or with a bad one', async () => {
    const u = await registerUser(gw.url)
    const chat = await newChat(u.accessToken)
    const routes: Array<[string, string, unknown]> = [
      ['GET', '/api/chats', undefined],
      ['POST', '/api/chats', { title: 't', model: 'm' }],
      ['GET', `/api/chats/${chat.id}`, undefined],
      ['DELETE', `/api/chats/${chat.id}`, undefined],
      ['POST', `/api/chats/${chat.id}/messages`, { role: 'user', content: 'x' }],
    ]
    for (const token of [undefined, 'garbage', u.refreshToken]) {
      for (const [method, path, body] of routes)
        expect({ method, path, ...pick(await call(method, path, { body, token })) }).toEqual({ method, path, ...err(401, 'Требуется авторизация') })
    }
    expect((await listChats(u.accessToken)).map((c) => c.id)).toEqual([chat.id])
  })
})

describe('validation: 400 with a Russian message, never 500', () => {
  test.each([
    ['no title', { model: 'openai/gpt-4' }, 'Введите название чата'],
    ['empty title', { title: '', model: 'openai/gpt-4' }, 'Введите название чата'],
    ['blank title', { title: ' \n\t ', model: 'openai/gpt-4' }, 'Введите название чата'],
    ['number title', { title: 5, model: 'openai/gpt-4' }, 'Введите название чата'],
    ['too long title', { title: 'я'.repeat(201), model: 'openai/gpt-4' }, 'Название чата не длиннее 200 символов'],
    ['no model', { title: 'Чат' }, 'Укажите модель чата'],
    ['blank model', { title: 'Чат', model: '  ' }, 'Укажите модель чата'],
    ['array model', { title: 'Чат', model: ['x'] }, 'Укажите модель чата'],
  ])('create with %s', async (_label, body, message) => {
    const u = await registerUser(gw.url)
    expect(pick(await call('POST', '/api/chats', { body, token: u.accessToken }))).toEqual(err(400, message))
    expect(await listChats(u.accessToken)).toEqual([])
  })

  test('malformed JSON → 400', async () => {
    const u = await registerUser(gw.url)
    expect(pick(await call('POST', '/api/chats', { raw: '{"title":', token: u.accessToken }))).toEqual(err(400, 'Некорректный JSON в теле запроса'))
    const chat = await newChat(u.accessToken)
    expect(pick(await call('POST', `/api/chats/${chat.id}/messages`, { raw: 'nope', token: u.accessToken }))).toEqual(err(400, 'Некорректный JSON в теле запроса'))
  })

  test.each([
    ['a system role', { role: 'system', content: 'x' }, 'role должен быть user или assistant'],
    ['no role', { content: 'x' }, 'role должен быть user или assistant'],
    ['content as a number', { role: 'user', content: 5 }, 'Текст сообщения должен быть строкой'],
    ['content as parts', { role: 'user', content: [{ type: 'text', text: 'x' }] }, 'Текст сообщения должен быть строкой'],
    ['empty content, no files', { role: 'user', content: '   ' }, 'Сообщение не может быть пустым: введите текст или прикрепите файл'],
    ['content over 100 000 characters', { role: 'assistant', content: 'я'.repeat(100_001) }, 'Сообщение слишком длинное (не более 100 000 символов)'],
    ['files not an array', { role: 'user', content: 'x', files: 'a.png' }, 'files должен быть массивом вложений {id} или {url}'],
    ['eleven files', { role: 'user', content: 'x', files: Array.from({ length: 11 }, () => ({ id: 'x' })) }, 'К сообщению можно прикрепить не более 10 файлов'],
    ['metadata not an object', { role: 'assistant', content: 'x', metadata: 'cheap' }, 'metadata должен быть объектом'],
    ['metadata too big', { role: 'assistant', content: 'x', metadata: { blob: 'я'.repeat(3000) } }, 'Метаданные сообщения слишком большие'],
  ])('message with %s', async (_label, body, message) => {
    const u = await registerUser(gw.url)
    const chat = await newChat(u.accessToken)
    expect(pick(await addMessage(u.accessToken, chat.id, body))).toEqual(err(400, message))
    expect((await getChat(u.accessToken, chat.id)).messages).toEqual([])
  })

  test('exactly 100 000 characters is accepted', async () => {
    const u = await registerUser(gw.url)
    const chat = await newChat(u.accessToken)
    expect((await addMessage(u.accessToken, chat.id, { role: 'assistant', content: 'я'.repeat(100_000) })).status).toBe(201)
  })
})

describe('image messages: the spec’s JSON string, parsed back on load', () => {
  test('a generated picture round-trips: stored as JSON text, returned as text + images + metadata, and the link still opens', async () => {
    const u = await registerUser(gw.url)
    const gen = await fetch(`${gw.url}/v1/images`, {
      method: 'POST',
      headers: { authorization: `Bearer ${u.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'google/gemini-2.5-flash-image', prompt: 'Кот на луне', size: '1024x1024', quality: 'standard', n: 1, response_format: 'url' }),
    })
    expect(gen.status).toBe(200)
    const image = (await gen.json()) as { data: Array<{ url: string; revised_prompt?: string }>; usage: { cost_rub: string } }
    const url = image.data[0]!.url
    expect(url).toContain('/v1/files/')

    const chat = await newChat(u.accessToken, 'Чат с Google: Gemini 2.5 Flash Image', 'google/gemini-2.5-flash-image')
    await addMessage(u.accessToken, chat.id, { role: 'user', content: 'Кот на луне' })
    const content = JSON.stringify({
      type: 'image-message',
      text: 'Готово: кот на луне',
      images: [url],
      metadata: { model: 'google/gemini-2.5-flash-image', size: '1024x1024', quality: 'standard', quantity: 1, costRub: image.usage.cost_rub },
    })
    const saved = await addMessage(u.accessToken, chat.id, { role: 'assistant', content })
    expect(saved.status).toBe(201)
    expect(saved.body.data).toMatchObject({ role: 'assistant', type: 'image-message', content: 'Готово: кот на луне' })

    // In the database it is the spec's JSON string.
    const [row] = await gw.read<{ content: string }>('select content from chat_messages where id = ?', saved.body.data.id)
    expect(JSON.parse(row!.content)).toEqual({
      type: 'image-message',
      text: 'Готово: кот на луне',
      images: [url],
      metadata: { model: 'google/gemini-2.5-flash-image', size: '1024x1024', quality: 'standard', quantity: 1, costRub: image.usage.cost_rub },
    })

    const read = await getChat(u.accessToken, chat.id)
    const msg = read.messages[1]
    expect(msg).toEqual({
      id: saved.body.data.id,
      role: 'assistant',
      type: 'image-message',
      content: 'Готово: кот на луне',
      images: [expect.stringContaining('/v1/files/')],
      files: [],
      metadata: { model: 'google/gemini-2.5-flash-image', size: '1024x1024', quality: 'standard', quantity: 1, costRub: image.usage.cost_rub },
      createdAt: expect.any(String),
    })
    // The same picture (re-signed on read), still a PNG anyone with the link can download.
    expect(new URL(msg.images[0]).pathname).toBe(new URL(url).pathname)
    const png = await fetch(local(msg.images[0]))
    expect(png.status).toBe(200)
    expect(png.headers.get('content-type')).toBe('image/png')
    expect([...new Uint8Array(await png.arrayBuffer()).slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
  })

  test('unknown metadata keys are dropped; images given as {url} objects are stored as links', async () => {
    const u = await registerUser(gw.url)
    const chat = await newChat(u.accessToken)
    const content = JSON.stringify({ type: 'image-message', text: 't', images: [{ url: 'https://cdn.example.com/a.png' }], metadata: { quantity: 2, evil: '<script>' } })
    const saved = await addMessage(u.accessToken, chat.id, { role: 'assistant', content })
    expect(saved.body.data).toMatchObject({ type: 'image-message', images: ['https://cdn.example.com/a.png'], metadata: { quantity: 2 } })
  })

  test.each([
    ['no images', { type: 'image-message', text: 't', images: [] }],
    ['images not a list', { type: 'image-message', text: 't', images: 'https://x/a.png' }],
    ['a data URL', { type: 'image-message', text: 't', images: ['data:image/png;base64,iVBORw0KGgo='] }],
    ['a javascript: URL', { type: 'image-message', text: 't', images: ['javascript:alert(1)'] }],
    ['text not a string', { type: 'image-message', text: 5, images: ['https://x/a.png'] }],
    ['metadata a string', { type: 'image-message', text: 't', images: ['https://x/a.png'], metadata: 'x' }],
    ['eleven images', { type: 'image-message', text: 't', images: Array.from({ length: 11 }, (_, i) => `https://x/${i}.png`) }],
  ])('a broken image message (%s) → 400', async (_label, message) => {
    const u = await registerUser(gw.url)
    const chat = await newChat(u.accessToken)
    expect(pick(await addMessage(u.accessToken, chat.id, { role: 'assistant', content: JSON.stringify(message) }))).toEqual(err(400, 'Некорректное сообщение с изображениями'))
  })

  test('JSON that is not an image message stays plain text', async () => {
    const u = await registerUser(gw.url)
    const chat = await newChat(u.accessToken)
    const content = '{"type":"other","images":[]}'
    const saved = await addMessage(u.accessToken, chat.id, { role: 'user', content })
    expect(saved.body.data).toMatchObject({ type: 'text', content, images: [] })
  })
})

describe('attachments', () => {
  test('a message with files: returned with fresh signed links; deleting the chat deletes the uploads', async () => {
    const u = await registerUser(gw.url)
    const text = await upload(u.accessToken, 'строка 1\nстрока 2', 'заметки.txt')
    const png = await upload(u.accessToken, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]), 'pic.png')
    const chat = await newChat(u.accessToken)
    // An attachment alone (no text) is a valid message; files can be referenced by id or by link.
    const saved = await addMessage(u.accessToken, chat.id, { role: 'user', content: '', files: [{ id: text.id }, { url: png.url }] })
    expect(saved.status).toBe(201)
    const read = await getChat(u.accessToken, chat.id)
    expect(read.messages[0].files).toEqual([
      { id: text.id, url: expect.stringContaining('/api/uploads/'), filename: 'заметки.txt', mimetype: 'text/plain', size: Buffer.byteLength('строка 1\nстрока 2') },
      { id: png.id, url: expect.stringContaining('/api/uploads/'), filename: 'pic.png', mimetype: 'image/png', size: 11 },
    ])
    const link = read.messages[0].files[0].url
    expect(await (await fetch(local(link))).text()).toBe('строка 1\nстрока 2')

    const name = new URL(link).pathname.split('/').pop()!
    expect(existsSync(join(gw.server.dataDir, 'uploads', name))).toBe(true)
    expect((await call('DELETE', `/api/chats/${chat.id}`, { token: u.accessToken })).status).toBe(200)
    expect((await fetch(local(link))).status).toBe(404)
    expect(existsSync(join(gw.server.dataDir, 'uploads', name))).toBe(false)
    expect(await gw.read('select id from uploads where user_id = ?', u.user.id)).toEqual([])
  })
})
