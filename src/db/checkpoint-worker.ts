// Runs SQLite's WAL checkpoints on its own connection and thread, when the main thread asks (see
// startCheckpointer in client.ts). Left to SQLite, a checkpoint (with its fsyncs) runs inside
// whichever commit crosses the threshold, stalling that request; bench/README.md measured it as the
// gateway's p99. PASSIVE never waits for readers or writers.
import { Database } from 'bun:sqlite'

declare const self: Worker

let db: Database | undefined

self.onmessage = (event: MessageEvent<{ url: string } | { checkpoint: number }>) => {
  const msg = event.data
  if ('url' in msg) {
    db = new Database(msg.url)
    db.exec('PRAGMA busy_timeout = 1000')
    return
  }
  try {
    db!.exec('PRAGMA wal_checkpoint(PASSIVE)')
  } catch (e) {
    console.warn(`[db] checkpoint failed: ${(e as Error).message}`)
  }
  self.postMessage({ checkpoint: msg.checkpoint })
}
