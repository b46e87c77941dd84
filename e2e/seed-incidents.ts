// Puts upstream incidents into the e2e server's database through the status feature's own store, as
// two instances' breakers would have recorded them. Run with bun (bun:sqlite); status.e2e.ts calls it:
//   echo '[{"upstream":"primary","startedAt":"…","endedAt":"…","reason":"HTTP 503"}]' | E2E_DATA_DIR=… bun e2e/seed-incidents.ts
import { join } from 'node:path'
import { openDatabase } from '../src/db/client'
import { incidentsStore } from '../src/status/store'
import type { UpstreamName } from '../src/upstream/names'

type Input = { upstream: UpstreamName; startedAt: string; endedAt: string; reason: string; instance?: string }

const dataDir = process.env.E2E_DATA_DIR
if (!dataDir) throw new Error('E2E_DATA_DIR is not set')
const input = JSON.parse(await Bun.stdin.text()) as Input[]
const { db, close } = openDatabase(join(dataDir, 'gateway.db'))
try {
  const store = incidentsStore(db)
  for (const i of input) {
    const id = await store.open(i.upstream, i.instance ?? 'e2e-instance', new Date(i.startedAt), i.reason)
    await store.close(id, new Date(i.endedAt))
  }
} finally {
  await close()
}
