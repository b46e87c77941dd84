import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../db/client'
import { chatMessages, chats, type ChatMessageRow, type ChatRow } from './schema'

export const chatsStore = (db: Db) => ({
  listForUser: (userId: string, limit: number) =>
    db.select().from(chats).where(eq(chats.userId, userId)).orderBy(desc(chats.updatedAt), desc(chats.id)).limit(limit).all(),
  countForUser: (userId: string) => db.select({ n: sql<number>`count(*)` }).from(chats).where(eq(chats.userId, userId)).get()?.n ?? 0,
  byIdForUser: (id: string, userId: string) => db.select().from(chats).where(and(eq(chats.id, id), eq(chats.userId, userId))).get(),
  insert: (row: ChatRow) => db.insert(chats).values(row).run(),
  /** Messages cascade with the chat. */
  delete: (id: string) => db.delete(chats).where(eq(chats.id, id)).run(),

  messages: (chatId: string) => db.select().from(chatMessages).where(eq(chatMessages.chatId, chatId)).orderBy(asc(chatMessages.createdAt), asc(chatMessages.id)).all(),
  countMessages: (chatId: string) => db.select({ n: sql<number>`count(*)` }).from(chatMessages).where(eq(chatMessages.chatId, chatId)).get()?.n ?? 0,
  deleteMessages: (ids: string[]) => (ids.length ? db.delete(chatMessages).where(inArray(chatMessages.id, ids)).run() : undefined),
  /** The message and the chat's new activity time, together. */
  addMessage: (row: ChatMessageRow) =>
    db.transaction((tx) => {
      tx.insert(chatMessages).values(row).run()
      tx.update(chats).set({ updatedAt: row.createdAt }).where(eq(chats.id, row.chatId)).run()
    }),
})
