// Group commit for PostgreSQL: the money units of concurrent requests of one instance go to the
// database together. A unit that finds no batch at the database is sent at once (a lone request
// waits for nobody); those that arrive while one is there wait for it and then go out together as
// the next one — one statement, one round trip, one commit for all of them (money/pg/statements.ts).
// SQLite's group commit (db/writer.ts) does the same for its single writer.
import { isDatabaseUnavailable } from '../../db/outage'

/** The most units one statement carries (its JSON and its plan grow with it). */
const MAX_BATCH = 128

type Waiting<I, O> = { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }

/**
 * A queue that runs `run` over the items of concurrent callers, one batch at a time; each caller
 * gets the answer for its own item. When a batch fails for another reason than the database not
 * answering (a deadlock, a value one item got wrong), its items are tried again one by one, so a
 * single bad item never fails the others. `lingerMs`: an item that finds the queue idle waits that
 * long for company — for work nobody waits on (charges applied after their answers went out), where
 * a batch of several costs the database little more than a batch of one.
 */
export function batched<I, O>(run: (items: I[]) => Promise<O[]>, opts: { lingerMs?: number } = {}): (item: I) => Promise<O> {
  let waiting: Waiting<I, O>[] = []
  let busy = false
  let lingering = false

  const send = async (batch: Waiting<I, O>[]) => {
    try {
      const out = await run(batch.map((w) => w.item))
      for (const [i, w] of batch.entries()) w.resolve(out[i]!)
    } catch (e) {
      if (batch.length === 1 || isDatabaseUnavailable(e)) for (const w of batch) w.reject(e)
      else
        for (const w of batch)
          run([w.item]).then(
            (out) => w.resolve(out[0]!),
            (err) => w.reject(err),
          )
    }
  }

  const next = () => {
    if (busy || waiting.length === 0) return
    busy = true
    const batch = waiting.length > MAX_BATCH ? waiting.splice(0, MAX_BATCH) : waiting
    if (batch === waiting) waiting = []
    void send(batch).finally(() => {
      busy = false
      next()
    })
  }

  const arrive = () => {
    if (!opts.lingerMs || busy || waiting.length >= MAX_BATCH) return next()
    if (lingering) return
    lingering = true
    setTimeout(() => {
      lingering = false
      next()
    }, opts.lingerMs)
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject })
      arrive()
    })
}
