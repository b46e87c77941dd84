import { expect, test } from 'bun:test'
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase, startCheckpointer } from './client'
import { onPostgres } from './dialect'
import { writer } from './writer'

/** The WAL header's checkpoint sequence number: SQLite bumps it each time the WAL restarts from its start. */
function walRestarts(walPath: string): number {
  const fd = openSync(walPath, 'r') // only the 32-byte header, not the whole WAL
  try {
    const header = Buffer.alloc(16)
    readSync(fd, header, 0, 16, 0)
    return header.readUInt32BE(12)
  } finally {
    closeSync(fd)
  }
}

// SQLite's WAL only: PostgreSQL checkpoints on its own.
test.skipIf(onPostgres)('under writes that never stop, the WAL is still checkpointed completely and restarted', { timeout: 30_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ckpt-'))
  const url = join(dir, 'db.sqlite')
  const { db } = openDatabase(url)
  const sqlite = db.$client
  sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)')
  const stop = startCheckpointer(db, url)
  const write = writer(db)
  const insert = sqlite.prepare('INSERT INTO t (v) VALUES (?)')
  const payload = 'x'.repeat(500)
  const restartsBefore = walRestarts(`${url}-wal`)
  let commits = 0
  // Four writers that always have a unit queued, so there is never a quiet moment between commits:
  // at least 2.5 s of them, longer (up to 15 s) on a loaded machine until two restarts were seen.
  const started = Date.now()
  const keepWriting = () => {
    const elapsed = Date.now() - started
    return elapsed < 2_500 || (elapsed < 15_000 && walRestarts(`${url}-wal`) - restartsBefore < 2)
  }
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (keepWriting()) {
        await write(() => insert.run(payload))
        commits++
      }
    }),
  )
  const restarts = walRestarts(`${url}-wal`) - restartsBefore
  const rows = (sqlite.query('select count(*) as n from t').get() as { n: number }).n
  stop()
  sqlite.close()
  rmSync(dir, { recursive: true, force: true })
  expect(rows).toBe(commits)
  // A checkpoint every half second, each followed by a restart of the WAL (without the pause, none).
  expect(restarts).toBeGreaterThanOrEqual(2)
})
