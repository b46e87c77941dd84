// The gateway's own rows: the generated pictures and their owners.
import { and, eq, isNull } from 'drizzle-orm'
import { users } from '../auth/schema'
import type { Db } from '../db/client'
import { write } from '../db/tx'
import { type GeneratedImageRow, generatedImages } from './schema'

export const gatewayStore = (db: Db) => ({
  insertImage: async (row: GeneratedImageRow) => {
    await write(db, (q) => q.insert(generatedImages).values(row))
  },
  /** The owner of a stored picture while their account is alive; undefined for an unknown name or a deleted account. */
  liveOwnerOf: async (name: string): Promise<string | undefined> =>
    (
      await db
        .select({ userId: generatedImages.userId })
        .from(generatedImages)
        .innerJoin(users, eq(users.id, generatedImages.userId))
        .where(and(eq(generatedImages.name, name), isNull(users.deletedAt)))
        .limit(1)
    )[0]?.userId,
})
