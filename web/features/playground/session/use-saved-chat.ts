// The session's chat in the history (the Playground's chat; a comparison's columns are kept on
// screen only): created with the first message and titled from it, every message saved in order,
// cut back when a question is asked again, opened from and deleted in the history bar.
import { useCallback, useRef, useState } from 'react'
import { ApiError } from '../../../lib/api'
import { toast } from '../../../stores/toasts'
import { type ChatSummary, type ChatWithMessages, createChat, deleteChat, loadChat, type StoredMessage, saveMessage, truncateChat } from '../history/chats-api'
import { isLocalKey } from '../local-key'
import type { PlaygroundModel } from '../models/models'
import type { UiMessage, UploadedFile } from '../types'

/** A chat is titled from its first message, cut at a word near this many characters. */
export const TITLE_CHARS = 60

/** What a chat is called when its first message says nothing to name it by. */
const defaultTitle = (model: PlaygroundModel) => `Чат с ${model.name || model.id}`

/**
 * The chat's title from its first message: one line, at most about 60 characters, cut at a word
 * with an ellipsis; a message of attachments only is named by its first file.
 */
export function titleFrom(text: string, files: UploadedFile[], fallback: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  if (!line) return files[0] ? `Файл ${files[0].filename}`.slice(0, TITLE_CHARS) : fallback
  if (line.length <= TITLE_CHARS) return line
  const cut = line.slice(0, TITLE_CHARS)
  const space = cut.lastIndexOf(' ')
  return `${(space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:—-]+$/, '')}…`
}

export const fromStored = (m: StoredMessage): UiMessage => ({
  key: m.id,
  role: m.role,
  content: m.content,
  images: m.images,
  files: m.files,
  metadata: m.metadata ?? {},
  status: m.metadata?.stopped ? 'stopped' : undefined,
})

/**
 * Sending again from some point of the conversation (regenerate, edit and resend): the saved chat
 * drops `truncateFrom` and what follows once the new reply starts; `userSaved` — the question is
 * already in the saved chat (regenerate).
 */
export type Prelude = { truncateFrom?: string; userSaved?: boolean }

type SavedMessage = Parameters<typeof saveMessage>[1]

export type SavedChat = ReturnType<typeof useSavedChat>

export function useSavedChat({ persist, onHistory }: { persist: boolean; onHistory?: () => void }) {
  const [chat, setChat] = useState<ChatSummary | null>(null)
  const [chatLoading, setChatLoading] = useState(false)
  const chatRef = useRef<ChatSummary | null>(null)
  chatRef.current = chat
  /** local message key → its id in the saved chat, once saved (loaded messages use their id as key) */
  const storedIds = useRef(new Map<string, string>())
  const storedIdOf = (key: string) => storedIds.current.get(key) ?? (isLocalKey(key) ? undefined : key)
  const titleRef = useRef('')

  /** A new conversation: the next message starts another chat. */
  const forget = useCallback(() => {
    chatRef.current = null
    setChat(null)
  }, [])

  /** Loads a chat of the history; `show` puts its model and messages on screen. */
  async function open(summary: ChatSummary, show: (loaded: ChatWithMessages) => void) {
    setChatLoading(true)
    try {
      const loaded = await loadChat(summary.id)
      setChat({ id: loaded.id, title: loaded.title, model: loaded.model, createdAt: loaded.createdAt, updatedAt: loaded.updatedAt })
      show(loaded)
    } catch (error) {
      toast.error(error instanceof ApiError && error.message ? error.message : 'Не удалось открыть чат')
      if (error instanceof ApiError && error.status === 404) onHistory?.()
    } finally {
      setChatLoading(false)
    }
  }

  /** Deletes a chat of the history; `onOpen` clears the screen when it is the one open. */
  async function remove(summary: ChatSummary, onOpen: () => void) {
    try {
      await deleteChat(summary.id)
      if (chatRef.current?.id === summary.id) onOpen()
      toast.success('Чат удалён')
    } catch (error) {
      toast.error(error instanceof ApiError && error.message ? error.message : 'Не удалось удалить чат')
    } finally {
      onHistory?.()
    }
  }

  /** A new conversation is titled from its first question (`before` is what precedes it on screen). */
  function nameAfter(user: UiMessage, before: UiMessage[], forModel: PlaygroundModel) {
    if (!chatRef.current && before.length === 0) titleRef.current = titleFrom(user.content, user.files, defaultTitle(forModel))
  }

  /** The first save of a new conversation creates its chat, titled from that message. */
  const chatPromise = useRef<Promise<string> | null>(null)
  function ensureChat(forModel: PlaygroundModel, title: string): Promise<string> {
    if (chatRef.current) return Promise.resolve(chatRef.current.id)
    if (!chatPromise.current) {
      chatPromise.current = createChat(title, forModel.id)
        .then((created) => {
          const summary = { id: created.id, title: created.title, model: created.model, createdAt: created.createdAt, updatedAt: created.updatedAt }
          chatRef.current = summary
          setChat(summary)
          return created.id
        })
        .finally(() => {
          chatPromise.current = null
        })
    }
    return chatPromise.current
  }

  /** Saves in order (the user's message before the reply); a failure is reported, never thrown. */
  const saveQueue = useRef<Promise<unknown>>(Promise.resolve())
  function persistMessage(forModel: PlaygroundModel, message: SavedMessage, key?: string) {
    if (!persist) return Promise.resolve()
    const run = saveQueue.current.then(async () => {
      try {
        const id = await ensureChat(forModel, titleRef.current || defaultTitle(forModel))
        const saved = await saveMessage(id, message)
        if (key) storedIds.current.set(key, saved.id)
        // the saved chat follows its latest reply's model
        if (message.role === 'assistant' && chatRef.current && chatRef.current.model !== forModel.id) {
          const summary = { ...chatRef.current, model: forModel.id }
          chatRef.current = summary
          setChat(summary)
        }
      } catch (error) {
        toast.error(error instanceof ApiError && error.message ? `Сообщение не сохранено: ${error.message}` : 'Сообщение не сохранено в истории')
      } finally {
        onHistory?.()
      }
    })
    saveQueue.current = run
    return run
  }

  /** In order with the saves: the saved chat drops the message `key` and every later one. */
  function truncateSaved(key: string) {
    if (!persist) return Promise.resolve()
    const run = saveQueue.current.then(async () => {
      const chatId = chatRef.current?.id
      const id = storedIdOf(key)
      if (!chatId || !id) return // never saved: nothing to drop
      try {
        await truncateChat(chatId, id)
      } catch (error) {
        toast.error(error instanceof ApiError && error.message ? `История чата не обновлена: ${error.message}` : 'История чата не обновлена')
      }
    })
    saveQueue.current = run
    return run
  }

  /** The question goes into the saved chat (after what it replaces is dropped from there). */
  function saveQuestion(forModel: PlaygroundModel, user: UiMessage, prelude: Prelude) {
    if (prelude.truncateFrom) void truncateSaved(prelude.truncateFrom)
    if (!prelude.userSaved) void persistMessage(forModel, { role: 'user', content: user.content, files: user.files.map((f) => ({ id: f.id })) }, user.key)
  }

  return { persist, chat, chatLoading, open, remove, forget, nameAfter, saveQuestion, persistMessage }
}
