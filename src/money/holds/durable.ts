// Closing a hold whatever the database does: a settlement the database refused is retried until it
// commits, and a long answer's generation is noted on its hold so that a crash still charges it. On
// SQLite an answer's settlement may run after it (closeForAnswer); the reads that show money wait for
// those, and for the reserves' pending charges on PostgreSQL (chargesApplied).

import { and, eq, isNull } from 'drizzle-orm'
import { onPostgres } from '../../db/dialect'
import { noteDatabaseFailure } from '../../db/outage'
import { write } from '../../db/tx'
import type { Db } from '../../db/types'
import { type HoldGeneration, holds } from '../schema'
import { carving, reservesIfAny } from './pg'
import type { Closed, Settled } from './types'

/**
 * Remembers the router's generation id on the hold (the first id wins), with what a settlement from
 * /generation needs: should this process die before settling, whoever gives the hold back charges
 * what the router delivered instead. Not awaited on the request path. The write goes out once the
 * answer has run NOTE_AFTER_MS, and not at all when the hold's closing has begun by then and commits
 * (an answer that ends sooner, settled at once): the hold is gone, so there is nothing left to
 * recover, and the note would only wait behind the settlement for the hold's row — on PostgreSQL a
 * request served from a reserve would even have to move to a hold row of its own first
 * (bench/README.md, issue 25). When that closing fails or is deferred, the note goes out then.
 */
export function noteGeneration(db: Db, holdId: string, generationId: string, info: HoldGeneration): void {
  if (unnoted.has(holdId)) return
  const send = () => {
    forgetNote(holdId)
    const failed = (e: unknown) => {
      if (!noteDatabaseFailure(e)) console.error(`[billing] hold ${holdId}: generation id not recorded: ${(e as Error).message}`)
    }
    // A request served from a reserve has no row to note it on: it moves to a hold row of its own, with the note.
    const r = reservesIfAny(db)
    if (r?.has(holdId)) {
      const moved = r
        .carveOut(holdId, generationId, info)
        .catch(failed)
        .finally(() => carving.delete(holdId))
      carving.set(holdId, moved)
      return
    }
    void write(db, (q) =>
      q
        .update(holds)
        .set({ generationId, generation: info })
        .where(and(eq(holds.id, holdId), isNull(holds.generationId))),
    ).catch(failed)
  }
  const timer = setTimeout(() => {
    if (unnoted.get(holdId)?.send === send && !closingHere.has(holdId)) send()
  }, NOTE_AFTER_MS)
  unnoted.set(holdId, { send, timer })
}

/** The hold closed: its generation, not yet noted, has nothing left to protect (its timer goes too: one wake-up fewer per answer). */
function forgetNote(holdId: string) {
  const note = unnoted.get(holdId)
  if (!note) return
  clearTimeout(note.timer)
  unnoted.delete(holdId)
}

/**
 * How long an answer runs before its generation is noted. What a crash can then lose is the router's
 * charge for answers in their first tenth of a second (they were never delivered whole); a quicker
 * note costs every short answer a write, and on PostgreSQL a reserve-backed one a move to a hold row.
 */
const NOTE_AFTER_MS = 100

/** Generation ids waiting for NOTE_AFTER_MS to pass (or for their hold's closing), by hold. */
const unnoted = new Map<string, { send: () => void; timer: ReturnType<typeof setTimeout> }>()
/** Holds whose closing unit (closeDurably) is running in this process. */
const closingHere = new Set<string>()

/** Back-off between tries of a closing the database refused (the last one repeats). */
const CLOSE_RETRY_MS = [250, 500, 1000, 2000, 5000]
/** Holds whose closing waits for the database (the stale-hold sweep leaves them to it). */
export const waiting = new Set<string>()

/**
 * Runs a closing unit — a settlement or a release. When the database is not answering, the hold
 * stays as it is (reserved, its lease renewed while this process lives) and the unit is tried again
 * in the background until it commits; `late` gets its result then. A retry after a commit whose
 * answer was lost finds the hold closed and changes nothing: never charged twice.
 */
export async function closeDurably<T>(holdId: string, unit: () => Promise<T>, late?: (result: T) => void): Promise<Closed<T>> {
  closingHere.add(holdId)
  try {
    const result = await unit()
    forgetNote(holdId)
    return { deferred: false, result }
  } catch (e) {
    // Not closed: the hold keeps waiting, so it must know its generation (noteGeneration).
    unnoted.get(holdId)?.send()
    if (!noteDatabaseFailure(e)) throw e
    retryClosing(holdId, unit, late, 0)
    return { deferred: true }
  } finally {
    closingHere.delete(holdId)
  }
}

function retryClosing<T>(holdId: string, unit: () => Promise<T>, late: ((result: T) => void) | undefined, attempt: number) {
  waiting.add(holdId)
  setTimeout(
    async () => {
      try {
        const result = await unit()
        waiting.delete(holdId)
        late?.(result)
      } catch (e) {
        if (noteDatabaseFailure(e)) return retryClosing(holdId, unit, late, attempt + 1)
        waiting.delete(holdId)
        console.error(`[billing] hold ${holdId}: closing failed after the database came back: ${(e as Error).message}`)
      }
    },
    CLOSE_RETRY_MS[Math.min(attempt, CLOSE_RETRY_MS.length - 1)],
  )
}

/** Settlements of answers already sent (closeForAnswer): the reads that show money and a graceful stop wait for them. */
const afterAnswers = new Set<Promise<void>>()

/**
 * Resolves once the charges of answers this process already sent are in the books — the settlements
 * after the answer (closeForAnswer: run, deferred or failed) and, on PostgreSQL, the reserves' pending
 * charges: reads that show money wait for it, and so does a graceful stop.
 */
export function chargesApplied(db: Db): Promise<unknown> {
  const settling = afterAnswers.size === 0 ? Promise.resolve() : Promise.all(afterAnswers)
  const reserves = reservesIfAny(db)
  return reserves ? Promise.all([reserves.applied(), settling]) : settling
}

/**
 * Closes the hold of an answer about to go out (closeDurably) and answers what the customer is told it
 * cost. A charge within its hold is that charge whatever the books say: the hold reserved it on every
 * level, so no budget and no balance can cap it. On SQLite such an answer does not wait for the
 * settlement's group commit (about half a millisecond at concurrency 1, bench/README.md): the unit runs
 * in the next one, `settled` gets its result, and the reads that show money wait for it
 * (chargesApplied). What a crash in that millisecond costs is the router's charge for answers already
 * sent — ours, never the customer's: the hold is given back at the next start. On PostgreSQL the answer
 * waits, as the reserves' crash guarantee needs (reserves.ts), and so does a charge beyond its hold,
 * which the unit may cap.
 */
export async function closeForAnswer(
  holdId: string,
  charge: { micros: number; heldMicros: number },
  unit: () => Promise<Settled | null>,
  settled: (result: Settled | null) => void,
  /** A settlement after the answer that failed for a reason other than the database: as an answer that waited would have, the caller gives the hold back. */
  failed: (error: Error) => void,
): Promise<number> {
  if (!onPostgres && charge.micros <= charge.heldMicros) {
    const running: Promise<void> = closeDurably(holdId, unit, settled)
      .then(
        (closed) => {
          if (!closed.deferred) settled(closed.result)
        },
        (e) => {
          console.error(`[billing] hold ${holdId}: settlement after the answer failed: ${(e as Error).message}; the hold is given back`)
          failed(e as Error)
        },
      )
      .finally(() => afterAnswers.delete(running))
    afterAnswers.add(running)
    return charge.micros
  }
  const closed = await closeDurably(holdId, unit, settled)
  if (closed.deferred) return charge.micros
  settled(closed.result)
  return closed.result?.chargedMicros ?? 0
}
