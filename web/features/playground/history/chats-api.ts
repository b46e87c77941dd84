// /api/chats and /api/upload: the saved history of the Playground.
import useSWR from 'swr'
import type { Chat, ChatMessage, ChatSummary } from '../../../../src/wire'
import { api } from '../../../lib/api'
import type { MessageMetadata, UploadedFile } from '../types'

// The wire type, declared by the route schemas (src/chats/model.ts).
export type { ChatSummary }

export type StoredMessage = Omit<ChatMessage, 'metadata'> & { metadata: MessageMetadata }

export type ChatWithMessages = Omit<Chat, 'messages'> & { messages: StoredMessage[] }

/** The history bar shows the latest 10 chats (spec §9). */
export const HISTORY_SIZE = 10
export const CHATS_KEY = `/api/chats?limit=${HISTORY_SIZE}`

export function useChatHistory() {
  // new chats and messages change the order: a screen that mounts asks again
  return useSWR<ChatSummary[]>(CHATS_KEY, { dedupingInterval: 2000 })
}

export const createChat = (title: string, model: string) => api.post<ChatWithMessages>('/api/chats', { title, model })
export const loadChat = (id: string) => api.get<ChatWithMessages>(`/api/chats/${encodeURIComponent(id)}`)
export const deleteChat = (id: string) => api.delete<{ ok: boolean }>(`/api/chats/${encodeURIComponent(id)}`)

export function saveMessage(chatId: string, message: { role: 'user' | 'assistant'; content: string; files?: Array<{ id: string }>; metadata?: MessageMetadata }) {
  return api.post<StoredMessage>(`/api/chats/${encodeURIComponent(chatId)}/messages`, message)
}

/** The spec's stored form of a message with pictures. */
export function imageMessageContent(text: string, images: string[], metadata: MessageMetadata): string {
  return JSON.stringify({ type: 'image-message', text, images, metadata })
}

export const UPLOAD_ERROR = 'Ошибка загрузки файла'

export function uploadFile(file: Blob, filename: string, signal?: AbortSignal) {
  const form = new FormData()
  form.append('file', file, filename)
  return api.post<UploadedFile>('/api/upload', form, { fallback: UPLOAD_ERROR, signal })
}

/** Drops a saved message and every later one (regenerate, edit and resend). */
export const truncateChat = (chatId: string, messageId: string) =>
  api.delete<{ removed: number }>(`/api/chats/${encodeURIComponent(chatId)}/messages/${encodeURIComponent(messageId)}`)
