// This process among the instances sharing one database: it owns the holds of the requests it
// serves and the leases it claims. INSTANCE_ID names it in logs; by default a fresh id per start,
// so a restarted instance never mistakes its predecessor's holds for its own.
export const INSTANCE_ID = process.env.INSTANCE_ID?.trim() || crypto.randomUUID()

/**
 * This start of the process: a hold's lease belongs to it, not to INSTANCE_ID. An instance restarted
 * under the same fixed INSTANCE_ID (after kill -9) is another start, so it lets its predecessor's
 * holds lapse and gives them back instead of renewing them forever.
 */
export const LEASE_TOKEN = crypto.randomUUID()

/** How long an instance vouches for its open holds; renewed at a third of it while it lives. */
export const HOLD_LEASE_MS = Math.max(1000, Number(process.env.HOLD_LEASE_MS) || 30_000)
