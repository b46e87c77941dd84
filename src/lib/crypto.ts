import { createHash, randomBytes } from 'node:crypto'

/** A URL-safe random secret (256 bits by default) for refresh, reset and similar tokens. */
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url')

/** Tokens are stored only as this hash; a database leak then gives nobody a session. */
export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')

/** Time-ordered unique ids: index-friendly in SQLite and PostgreSQL alike. */
export const newId = () => Bun.randomUUIDv7()
