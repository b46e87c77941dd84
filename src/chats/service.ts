// Playground chats: a customer's conversations, their messages and attachments. Only the owner
// ever sees a chat (anyone else gets 404, as if it did not exist).
import type { Db } from '../db/types'
import type { ChatPictures, ImageStore } from '../gateway/files'
import { newId } from '../lib/crypto'
import { badRequest, notFound } from '../lib/errors'
import type { UploadsService } from '../uploads/service'
import type { ChatMessageRow, ChatRow, StoredFile } from './schema'
import { type ChatAccount, chatsStore } from './store'

export const MAX_CHATS_PER_USER = 1000
export const MAX_MESSAGES_PER_CHAT = 500
export const MAX_CONTENT_CHARS = 100_000
export const MAX_TITLE_CHARS = 200
export const MAX_FILES_PER_MESSAGE = 10
export const MAX_IMAGES_PER_MESSAGE = 10
const MAX_METADATA_BYTES = 4096
const MAX_URL_CHARS = 4096
export const DEFAULT_LIST_LIMIT = 50

export const CHAT_MESSAGES = {
  notFound: 'Чат не найден',
  title: 'Введите название чата',
  titleTooLong: `Название чата не длиннее ${MAX_TITLE_CHARS} символов`,
  model: 'Укажите модель чата',
  tooManyChats: `Можно хранить не более ${MAX_CHATS_PER_USER} чатов. Удалите ненужные.`,
  role: 'role должен быть user или assistant',
  content: 'Текст сообщения должен быть строкой',
  empty: 'Сообщение не может быть пустым: введите текст или прикрепите файл',
  tooLong: 'Сообщение слишком длинное (не более 100 000 символов)',
  tooManyMessages: `В чате уже ${MAX_MESSAGES_PER_CHAT} сообщений. Начните новый чат.`,
  imageMessage: 'Некорректное сообщение с изображениями',
  files: `К сообщению можно прикрепить не более ${MAX_FILES_PER_MESSAGE} файлов`,
  fileNotFound: 'Прикреплённый файл не найден. Загрузите его снова.',
  metadata: 'Метаданные сообщения слишком большие',
  metadataType: 'metadata должен быть объектом',
  filesType: 'files должен быть массивом вложений {id} или {url}',
  messageNotFound: 'Сообщение не найдено',
} as const

export type ImageMessage = { type: 'image-message'; text: string; images: string[]; metadata: Record<string, unknown> }

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isUrl = (u: unknown): u is string => typeof u === 'string' && u.length <= MAX_URL_CHARS && (/^https?:\/\/\S+$/i.test(u) || /^\/[^/\s]\S*$/.test(u))

/** The spec's image message, if `content` is one: `{"type":"image-message", text, images, metadata}`. */
export function parseImageMessage(content: string): ImageMessage | null {
  if (!content.startsWith('{')) return null
  let v: unknown
  try {
    v = JSON.parse(content)
  } catch {
    return null
  }
  if (!isRecord(v) || v.type !== 'image-message') return null
  return v as ImageMessage
}

/** Checks an image message and returns its canonical JSON string (what is stored). */
function normaliseImageMessage(m: ImageMessage): string {
  const images = Array.isArray(m.images) ? m.images.map((i) => (isRecord(i) ? i.url : i)) : null
  const ok =
    typeof (m.text ?? '') === 'string' &&
    images !== null &&
    images.length >= 1 &&
    images.length <= MAX_IMAGES_PER_MESSAGE &&
    images.every(isUrl) &&
    (m.metadata === undefined || isRecord(m.metadata))
  if (!ok) throw badRequest(CHAT_MESSAGES.imageMessage)
  const md = m.metadata ?? {}
  const metadata: Record<string, unknown> = {}
  // The spec's image-generation metadata, plus what the Playground shows after a reply.
  if (typeof md.model === 'string') metadata.model = md.model.slice(0, 200)
  if (typeof md.size === 'string') metadata.size = md.size.slice(0, 20)
  if (typeof md.quality === 'string') metadata.quality = md.quality.slice(0, 20)
  if (Number.isInteger(md.quantity) && (md.quantity as number) >= 1 && (md.quantity as number) <= 10) metadata.quantity = md.quantity
  if (typeof md.costRub === 'string' && /^\d{1,9}(\.\d{1,6})?$/.test(md.costRub)) metadata.costRub = md.costRub
  return JSON.stringify({ type: 'image-message', text: (m.text ?? '').slice(0, 10_000), images, metadata })
}

/** The generated picture a link names (`…/v1/files/<name>`), if it names one. */
const pictureName = (url: string) => url.match(/\/v1\/files\/([^/?#]+)(?:[?#]|$)/)?.[1]

/** The generated pictures an image message shows. */
const picturesIn = (content: string) => (parseImageMessage(content)?.images ?? []).flatMap((u) => (typeof u === 'string' ? (pictureName(u) ?? []) : []))

// Candidates read per lookup: the true first namer comes first unless that many near-misses precede it.
const NAMER_CANDIDATES = 20

/**
 * Who named a generated picture in a chat, for the image store's pictures that predate owners
 * (gateway/files.ts): a chat names a picture the way it is renewed, as one of an image message's images.
 */
export function chatPictures(db: Db): ChatPictures {
  const store = chatsStore(db)
  return {
    async firstNamer(name) {
      for (const m of await store.mentioning(`/v1/files/${name}`, NAMER_CANDIDATES)) if (picturesIn(m.content).includes(name)) return { userId: m.userId, at: m.createdAt }
      return undefined
    },
    namedBy: async (userId) => [...new Set((await store.userMentioning(userId, '/v1/files/')).flatMap(picturesIn))],
  }
}

/** A reply's model as its metadata names it, if it is a plausible catalogue id. */
const modelOf = (metadata: Record<string, unknown> | null): string | undefined => {
  const model = metadata?.model
  return typeof model === 'string' && model.trim() && model.length <= 200 ? model.trim() : undefined
}

export type NewMessage = { role: string; content: string; files?: unknown; metadata?: unknown }

/** `files` as sent: a list of `{id}` or `{url}` references. */
function fileRefs(files: unknown): Array<{ id?: string; url?: string }> {
  if (files === undefined || files === null) return []
  if (!Array.isArray(files) || !files.every((f) => isRecord(f) && (f.id === undefined || typeof f.id === 'string') && (f.url === undefined || typeof f.url === 'string')))
    throw badRequest(CHAT_MESSAGES.filesType)
  if (files.length > MAX_FILES_PER_MESSAGE) throw badRequest(CHAT_MESSAGES.files)
  return files as Array<{ id?: string; url?: string }>
}

export function chatsService(db: Db, uploads: UploadsService, images: ImageStore) {
  const store = chatsStore(db)

  async function owned(a: ChatAccount, id: string) {
    const chat = await store.byIdFor(id, a)
    if (!chat) throw notFound(CHAT_MESSAGES.notFound)
    return chat
  }

  const summary = (c: ChatRow) => ({ id: c.id, title: c.title, model: c.model, createdAt: c.createdAt.toISOString(), updatedAt: c.updatedAt.toISOString() })

  /**
   * Stored links are signed for a week; every read signs them afresh, so an old chat's pictures
   * and attachments still open. Only our own files are re-signed, and only for their owner.
   */
  async function freshUrl(userId: string, url: string): Promise<string> {
    const upload = uploads.nameFromUrl(url)
    if (upload) {
      const row = await uploads.byName(upload)
      return row && row.userId === userId ? uploads.signedUrl(row.name) : url
    }
    const generated = pictureName(url)
    // Another customer's picture named in a message keeps the link it came with (and so expires).
    if (generated) return (await images.renewFor(userId, generated)) ?? url
    return url
  }

  async function toApi(userId: string, m: ChatMessageRow) {
    const base = { id: m.id, role: m.role, createdAt: m.createdAt.toISOString() }
    const files = (m.files ?? []).map((f) => ({ id: f.id, url: uploads.signedUrl(f.name), filename: f.filename, mimetype: f.mimetype, size: f.size }))
    const image = m.role === 'assistant' || m.role === 'user' ? parseImageMessage(m.content) : null
    if (image)
      return {
        ...base,
        type: 'image-message' as const,
        content: image.text ?? '',
        images: await Promise.all(image.images.map((u) => freshUrl(userId, u))),
        files,
        metadata: image.metadata ?? {},
      }
    return { ...base, type: 'text' as const, content: m.content, images: [] as string[], files, metadata: m.metadata ?? {} }
  }

  function cleanTitle(raw: string) {
    const title = raw.replace(/\s+/g, ' ').trim()
    if (!title) throw badRequest(CHAT_MESSAGES.title)
    if (title.length > MAX_TITLE_CHARS) throw badRequest(CHAT_MESSAGES.titleTooLong)
    return title
  }

  /** Upload ids a message's attachments and pictures point at (for clean-up with the chat). */
  async function uploadIdsOf(messages: ChatMessageRow[], userId: string): Promise<string[]> {
    const ids = messages.flatMap((m) => (m.files ?? []).map((f) => f.id))
    const names = messages.flatMap((m) => parseImageMessage(m.content)?.images ?? []).map((u) => (typeof u === 'string' ? uploads.nameFromUrl(u) : null))
    for (const name of names) {
      const row = name ? await uploads.byName(name) : undefined
      if (row && row.userId === userId) ids.push(row.id)
    }
    return ids
  }

  return {
    list: async (a: ChatAccount, limit = DEFAULT_LIST_LIMIT) => (await store.listFor(a, limit)).map(summary),

    async get(a: ChatAccount, id: string) {
      const chat = await owned(a, id)
      const messages = await store.messages(chat.id)
      return { ...summary(chat), messages: await Promise.all(messages.map((m) => toApi(a.userId, m))) }
    },

    async create(a: ChatAccount, input: { title: string; model: string }) {
      const title = cleanTitle(input.title)
      const model = input.model.trim()
      if (!model || model.length > 200) throw badRequest(CHAT_MESSAGES.model)
      if ((await store.countFor(a)) >= MAX_CHATS_PER_USER) throw badRequest(CHAT_MESSAGES.tooManyChats)
      const now = new Date()
      const row: ChatRow = { id: newId(), userId: a.userId, teamId: a.teamId, title, model, createdAt: now, updatedAt: now }
      await store.insert(row)
      return { ...summary(row), messages: [] }
    },

    async remove(a: ChatAccount, id: string) {
      const userId = a.userId
      const chat = await owned(a, id)
      const uploadIds = await uploadIdsOf(await store.messages(chat.id), userId)
      await store.delete(chat.id)
      // Attachments belong to their chat: they go with it (and free the customer's quota).
      await uploads.remove((await uploads.ownedByIds(userId, uploadIds)).map((u) => u.id))
    },

    /**
     * Drops a message and every later one (the Playground's regenerate and edit-and-resend: the
     * conversation continues from there). Attachments stay: an edited question keeps its files.
     */
    async truncateFrom(a: ChatAccount, chatId: string, messageId: string) {
      const chat = await owned(a, chatId)
      const messages = await store.messages(chat.id)
      const from = messages.findIndex((m) => m.id === messageId)
      if (from < 0) throw notFound(CHAT_MESSAGES.messageNotFound)
      await store.deleteMessages(messages.slice(from).map((m) => m.id))
      return { removed: messages.length - from }
    },

    async addMessage(a: ChatAccount, chatId: string, input: NewMessage) {
      const userId = a.userId
      const chat = await owned(a, chatId)
      const role = input.role
      if (role !== 'user' && role !== 'assistant') throw badRequest(CHAT_MESSAGES.role)
      if (input.content.length > MAX_CONTENT_CHARS) throw badRequest(CHAT_MESSAGES.tooLong)
      const wanted = fileRefs(input.files)
      if (input.metadata !== undefined && input.metadata !== null && !isRecord(input.metadata)) throw badRequest(CHAT_MESSAGES.metadataType)
      // Attachments are referenced by id or by their URL; only the caller's own uploads count.
      const ids = await Promise.all(wanted.map(async (f) => f.id ?? (f.url ? (await uploads.byName(uploads.nameFromUrl(f.url) ?? ''))?.id : undefined) ?? ''))
      const rows = await uploads.ownedByIds(userId, ids.filter(Boolean))
      if (ids.some((id) => !rows.some((r) => r.id === id))) throw badRequest(CHAT_MESSAGES.fileNotFound)
      const files: StoredFile[] = ids.map((id) => rows.find((r) => r.id === id)!).map((r) => ({ id: r.id, name: r.name, filename: r.filename, mimetype: r.mimetype, size: r.size }))

      const image = parseImageMessage(input.content)
      const content = image ? normaliseImageMessage(image) : input.content
      if (!image && input.content.trim() === '' && files.length === 0) throw badRequest(CHAT_MESSAGES.empty)
      let metadata: Record<string, unknown> | null = null
      if (isRecord(input.metadata) && Object.keys(input.metadata).length > 0) {
        if (Buffer.byteLength(JSON.stringify(input.metadata)) > MAX_METADATA_BYTES) throw badRequest(CHAT_MESSAGES.metadata)
        metadata = input.metadata
      }
      if ((await store.countMessages(chat.id)) >= MAX_MESSAGES_PER_CHAT) throw badRequest(CHAT_MESSAGES.tooManyMessages)
      const row: ChatMessageRow = { id: newId(), chatId: chat.id, role, content, files: files.length ? files : null, metadata, createdAt: new Date() }
      // The chat follows the model of its latest reply: the conversation continues across a switch
      // of model (issue 29), and opening the chat again picks up where it was left.
      const answeredBy = role === 'assistant' ? modelOf(image ? (parseImageMessage(content)?.metadata ?? null) : metadata) : undefined
      await store.addMessage(row, answeredBy)
      return toApi(userId, row)
    },
  }
}

export type ChatsService = ReturnType<typeof chatsService>
