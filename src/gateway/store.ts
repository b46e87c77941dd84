// The gateway's own rows: the generated pictures and their owners.
import { eq } from 'drizzle-orm'
import { users } from '../auth/schema'
import { write } from '../db/tx'
import type { Db } from '../db/types'
import { type GeneratedImageRow, generatedImages } from './schema'

export const gatewayStore = (db: Db) => ({
  insertImage: async (row: GeneratedImageRow) => {
    await write(db, (q) => q.insert(generatedImages).values(row))
  },
  /**
   * Records a picture's owner unless it has one already (another request or instance may have got
   * there first): the owner of a picture generated before owners were recorded (files.ts).
   */
  claimImage: async (row: GeneratedImageRow) => {
    await write(db, (q) => q.insert(generatedImages).values(row).onConflictDoNothing())
  },
  /** A stored picture's owner and whether their account is alive; undefined for a name with no row. */
  ownerOf: async (name: string): Promise<{ userId: string; alive: boolean } | undefined> => {
    const [row] = await db
      .select({ userId: generatedImages.userId, deletedAt: users.deletedAt })
      .from(generatedImages)
      .innerJoin(users, eq(users.id, generatedImages.userId))
      .where(eq(generatedImages.name, name))
      .limit(1)
    return row && { userId: row.userId, alive: row.deletedAt === null }
  },
})
