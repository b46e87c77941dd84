// This process among the instances sharing one database: it owns the holds of the requests it
// serves and the leases it claims. INSTANCE_ID names it in logs; by default a fresh id per start,
// so a restarted instance never mistakes its predecessor's holds for its own.
import { PROCESS } from '../config'

export const INSTANCE_ID = PROCESS.instanceId

/**
 * This start of the process: a hold's lease belongs to it, not to INSTANCE_ID. An instance restarted
 * under the same fixed INSTANCE_ID (after kill -9) is another start, so it lets its predecessor's
 * holds lapse and gives them back instead of renewing them forever.
 */
export const LEASE_TOKEN = crypto.randomUUID()

/** How long an instance vouches for its open holds; renewed at a third of it while it lives. */
export const HOLD_LEASE_MS = PROCESS.holdLeaseMs

/** How often this process renews its holds' lease (and sweeps for the holds of dead ones). */
export const LEASE_RENEW_MS = Math.max(200, Math.floor(HOLD_LEASE_MS / 3))

/**
 * The fence on what this process serves from memory (reserves, money/reserves.ts): when its last
 * renewal succeeded. The others give back holds whose lease lapsed (renewal + HOLD_LEASE_MS); a
 * process that missed its renewals — paused (SIGSTOP), cut off from the database — has lost them,
 * whatever it remembers, and serves nothing from a reserve until a renewal succeeds again.
 */
let renewedAt = Date.now()

/** The start of the last renewal that committed (the process's start before the first). */
export const lastRenewal = (): number => renewedAt

/** A renewal that began at `startedAt` committed: the lease is ours until startedAt + HOLD_LEASE_MS. */
export function leaseRenewed(startedAt: number): void {
  renewedAt = Math.max(renewedAt, startedAt)
}

/**
 * Whether this process still holds its lease at `now`, with one renewal interval to spare (another
 * instance's clock, a renewal on its way): past it, the others may be giving its holds back.
 */
export const leaseHeld = (now = Date.now()): boolean => now < renewedAt + HOLD_LEASE_MS - LEASE_RENEW_MS
