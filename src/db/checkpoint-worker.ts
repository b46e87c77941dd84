// Runs SQLite's WAL checkpoints on its own connection and thread. Left to SQLite, a checkpoint
// (with its fsyncs) runs inside whichever commit crosses the threshold, stalling that request;
// bench/README.md measured it as the gateway's p99. PASSIVE never waits for readers or writers.
import { Database } from 'bun:sqlite'

declare const self: Worker

const EVERY_MS = 1000
let db: Database | undefined

self.onmessage = (event: MessageEvent<{ url: string }>) => {
  db = new Database(event.data.url)
  db.exec('PRAGMA busy_timeout = 1000')
  setInterval(() => {
    try {
      db!.exec('PRAGMA wal_checkpoint(PASSIVE)')
    } catch (e) {
      console.warn(`[db] checkpoint failed: ${(e as Error).message}`)
    }
  }, EVERY_MS)
}
