// Schema barrel: every table, for the Drizzle client and drizzle-kit.
export * from '../auth/schema'
export * from '../billing/schema'
export * from '../keys/schema'
export * from '../catalog/schema'
export * from '../payments/schema'
export { rateLimits } from '../lib/rate-limit'
export * from '../blog/schema'
