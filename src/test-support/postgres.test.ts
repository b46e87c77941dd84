// The test PostgreSQL itself: a cluster starts (as `postgres` when we are root), hands out separate
// databases that hold data independently, and leaves nothing behind when stopped.

import { describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { SQL } from 'bun'
import { startPostgres } from './postgres'

describe('test PostgreSQL', () => {
  test('two fresh databases on one cluster keep their own rows; stop() removes the cluster directory', async () => {
    const pg = await startPostgres()
    let stopped = false
    try {
      expect(pg.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/)
      expect(existsSync(pg.dir)).toBe(true)

      const urls = [await pg.createDatabase(), await pg.createDatabase('harness_named')]
      expect(urls[1]).toEndWith('/harness_named')
      expect(new Set(urls).size).toBe(2)

      for (const [i, url] of urls.entries()) {
        const sql = new SQL({ url, max: 2 })
        try {
          // An empty database: no table of the other one is visible.
          expect(await sql`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`).toEqual([{ n: 0 }])
          await sql`CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)`
          await sql`INSERT INTO notes (body) VALUES (${`заметка ${i}`}), (${'second'})`
          expect(await sql`SELECT body FROM notes ORDER BY id`).toEqual([{ body: `заметка ${i}` }, { body: 'second' }])
          // The settings the harness asks for are in force.
          const [{ max_connections }] = await sql`SHOW max_connections`
          expect(max_connections).toBe('300')
          const [{ fsync }] = await sql`SHOW fsync`
          expect(fsync).toBe('off')
        } finally {
          await sql.close()
        }
      }
      // A name already taken is refused rather than silently shared.
      await expect(pg.createDatabase('harness_named')).rejects.toThrow(/already exists/)

      await pg.stop()
      stopped = true
      expect(existsSync(pg.dir)).toBe(false)
      // Nothing listens on the port any more.
      const probe = new SQL({ url: pg.url, max: 1, connectionTimeout: 2 })
      await expect(probe`SELECT 1`).rejects.toThrow()
      await probe.close().catch(() => {})
    } finally {
      if (!stopped) await pg.stop()
    }
  }, 60_000)
})
