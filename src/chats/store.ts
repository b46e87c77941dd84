import { and, asc, count, desc, eq, inArray, isNull, like, type SQL } from 'drizzle-orm'
import { tx, write } from '../db/tx'
import type { Db } from '../db/types'
import { type ChatMessageRow, type ChatRow, chatMessages, chats } from './schema'

/** Whose chats: a person's in one account (personal, or a team's — a member sees only their own chats there). */
export type ChatAccount = { userId: string; teamId: string | null }

const ofAccount = (a: ChatAccount): SQL => and(eq(chats.userId, a.userId), a.teamId ? eq(chats.teamId, a.teamId) : isNull(chats.teamId))!

export const chatsStore = (db: Db) => ({
  listFor: (a: ChatAccount, limit: number) => db.select().from(chats).where(ofAccount(a)).orderBy(desc(chats.updatedAt), desc(chats.id)).limit(limit),
  countFor: async (a: ChatAccount) => (await db.select({ n: count() }).from(chats).where(ofAccount(a)))[0]?.n ?? 0,
  byIdFor: async (id: string, a: ChatAccount) =>
    (
      await db
        .select()
        .from(chats)
        .where(and(eq(chats.id, id), ofAccount(a)))
        .limit(1)
    )[0],
  insert: async (row: ChatRow) => {
    await write(db, (q) => q.insert(chats).values(row))
  },
  /** Messages cascade with the chat. */
  delete: async (id: string) => {
    await write(db, (q) => q.delete(chats).where(eq(chats.id, id)))
  },

  messages: (chatId: string) => db.select().from(chatMessages).where(eq(chatMessages.chatId, chatId)).orderBy(asc(chatMessages.createdAt), asc(chatMessages.id)),
  countMessages: async (chatId: string) => (await db.select({ n: count() }).from(chatMessages).where(eq(chatMessages.chatId, chatId)))[0]?.n ?? 0,
  deleteMessages: async (ids: string[]) => {
    if (ids.length) await write(db, (q) => q.delete(chatMessages).where(inArray(chatMessages.id, ids)))
  },
  /**
   * Messages whose text contains `fragment`, oldest first, with their chat's owner: a superset the
   * caller checks exactly (`_` is a LIKE wildcard and SQLite's LIKE ignores case). Reads every
   * message: only for pictures generated before owners were recorded, once each.
   */
  mentioning: (fragment: string, limit: number) =>
    db
      .select({ userId: chats.userId, content: chatMessages.content, createdAt: chatMessages.createdAt })
      .from(chatMessages)
      .innerJoin(chats, eq(chats.id, chatMessages.chatId))
      .where(like(chatMessages.content, `%${fragment}%`))
      .orderBy(asc(chatMessages.createdAt), asc(chatMessages.id))
      .limit(limit),
  /** The text of a user's messages that contain `fragment` (a superset, as above). */
  userMentioning: async (userId: string, fragment: string) =>
    (
      await db
        .select({ content: chatMessages.content })
        .from(chatMessages)
        .innerJoin(chats, eq(chats.id, chatMessages.chatId))
        .where(and(eq(chats.userId, userId), like(chatMessages.content, `%${fragment}%`)))
    ).map((r) => r.content),
  /** The message and the chat's new activity time (and, for a reply, the model that gave it), together. */
  addMessage: (row: ChatMessageRow, model?: string) =>
    tx(db, async (q) => {
      await q.insert(chatMessages).values(row)
      await q
        .update(chats)
        .set(model ? { updatedAt: row.createdAt, model } : { updatedAt: row.createdAt })
        .where(eq(chats.id, row.chatId))
    }),
})
