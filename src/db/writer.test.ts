import { Database } from 'bun:sqlite'
import { test as bunTest, expect } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onPostgres } from './dialect'
import { createGroupCommit } from './writer'

// The SQLite queue (on PostgreSQL each unit is its own transaction).
const test = onPostgres ? bunTest.skip : bunTest

function fileDb() {
  const dir = mkdtempSync(join(tmpdir(), 'gc-'))
  const path = join(dir, 'db.sqlite')
  const sqlite = new Database(path, { create: true, strict: true })
  sqlite.exec('PRAGMA journal_mode = WAL')
  sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)')
  return {
    sqlite,
    path,
    cleanup: () => {
      sqlite.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A queue over `sqlite` that records the transaction statements it runs. */
function countingQueue(sqlite: Database) {
  const ran: string[] = []
  const spy = {
    prepare: (sql: string) => ({
      run: () => {
        ran.push(sql)
        return sqlite.prepare(sql).run()
      },
    }),
  } as unknown as Database
  return { ran, run: createGroupCommit(spy) }
}

test('units queued in one turn share one commit; a unit that throws is rolled back alone', async () => {
  const { sqlite, path, cleanup } = fileDb()
  const { ran, run } = countingQueue(sqlite)
  const insert = sqlite.prepare('INSERT INTO t (v) VALUES (?) RETURNING id')
  const results = await Promise.allSettled([
    run(() => (insert.get('a') as { id: number }).id),
    run(() => {
      insert.run('doomed')
      throw new Error('refused')
    }),
    run(() => (insert.get('c') as { id: number }).id),
  ])
  expect(results[0]).toEqual({ status: 'fulfilled', value: 1 })
  expect(results[1]).toMatchObject({ status: 'rejected', reason: new Error('refused') })
  expect(results[2]).toEqual({ status: 'fulfilled', value: 2 })
  // Another connection sees exactly the surviving rows, committed once.
  const other = new Database(path, { readonly: true })
  expect(other.query('SELECT v FROM t ORDER BY id').all()).toEqual([{ v: 'a' }, { v: 'c' }])
  other.close()
  expect(ran.filter((q) => q === 'BEGIN IMMEDIATE' || q === 'COMMIT')).toEqual(['BEGIN IMMEDIATE', 'COMMIT'])
  expect(ran.filter((q) => q === 'ROLLBACK TO unit')).toHaveLength(1)
  expect(sqlite.inTransaction).toBe(false)
  cleanup()
})

test('a single-statement unit runs without a savepoint; its failed statement is undone by SQLite alone', async () => {
  const { sqlite, path, cleanup } = fileDb()
  const { ran, run } = countingQueue(sqlite)
  sqlite.exec("CREATE UNIQUE INDEX t_v ON t (v); INSERT INTO t (v) VALUES ('taken')")
  // One multi-row INSERT whose second row violates the unique index: nothing of it may remain.
  const results = await Promise.allSettled([
    run(() => sqlite.prepare("INSERT INTO t (v) VALUES ('a')").run().changes, { single: true }),
    run(() => sqlite.prepare("INSERT INTO t (v) VALUES ('b'), ('taken')").run(), { single: true }),
    run(() => sqlite.prepare('SELECT count(*) AS n FROM t').get(), { single: true }),
  ])
  expect(results[0]).toEqual({ status: 'fulfilled', value: 1 })
  expect(results[1]).toMatchObject({ status: 'rejected' })
  expect(results[2]).toEqual({ status: 'fulfilled', value: { n: 2 } })
  const other = new Database(path, { readonly: true })
  expect(other.query('SELECT v FROM t ORDER BY id').all()).toEqual([{ v: 'taken' }, { v: 'a' }])
  other.close()
  expect(ran.filter((q) => q.includes('unit'))).toEqual([])
  cleanup()
})

test('callers are answered only after the commit, and later turns get their own transaction', async () => {
  const { sqlite, path, cleanup } = fileDb()
  const run = createGroupCommit(sqlite)
  const other = new Database(path, { readonly: true })
  const seen = await run(() => sqlite.prepare("INSERT INTO t (v) VALUES ('x')").run().changes)
  expect(seen).toBe(1)
  expect(other.query('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 }) // visible elsewhere when the promise resolves
  await run(() => sqlite.prepare("INSERT INTO t (v) VALUES ('y')").run())
  expect(other.query('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 })
  other.close()
  cleanup()
})

test('a failed commit rejects every unit of the turn and leaves nothing behind', async () => {
  const { sqlite, path, cleanup } = fileDb()
  sqlite.exec('CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (p INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)')
  sqlite.exec('PRAGMA foreign_keys = ON')
  const run = createGroupCommit(sqlite)
  // A deferred foreign key is only checked at COMMIT: the whole turn fails there.
  const results = await Promise.allSettled([
    run(() => sqlite.prepare("INSERT INTO t (v) VALUES ('kept?')").run()),
    run(() => sqlite.prepare('INSERT INTO child (p) VALUES (42)').run()),
  ])
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
  const other = new Database(path, { readonly: true })
  expect(other.query('SELECT count(*) AS n FROM t').get()).toEqual({ n: 0 })
  other.close()
  expect(sqlite.inTransaction).toBe(false)
  // The queue keeps working afterwards.
  expect(await run(() => sqlite.prepare("INSERT INTO t (v) VALUES ('after')").run().changes)).toBe(1)
  cleanup()
})

test('while paused, units wait (and their callers with them); resuming commits them together', async () => {
  const { sqlite, cleanup } = fileDb()
  const run = createGroupCommit(sqlite)
  const resume = run.pause()
  let done = 0
  const units = [run(() => sqlite.prepare("INSERT INTO t (v) VALUES ('a')").run()), run(() => sqlite.prepare("INSERT INTO t (v) VALUES ('b')").run())]
  for (const u of units) void u.then(() => done++)
  await Bun.sleep(20)
  expect(done).toBe(0)
  expect(sqlite.query('SELECT count(*) AS n FROM t').get()).toEqual({ n: 0 })
  resume()
  resume() // a second call changes nothing
  await Promise.all(units)
  expect(done).toBe(2)
  expect(sqlite.query('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 })
  cleanup()
})
