import { expect, test } from 'bun:test'
import { DatabaseTimeout, isDatabaseUnavailable } from './outage'

const coded = (code: string, errno?: string | number) => Object.assign(new Error(code), { code, errno })

test('the database not answering is told apart from every other failure, however it is wrapped', () => {
  // What the drivers raise: a lock held past busy_timeout, a closed or refused connection, a server going away, our deadline.
  for (const e of [coded('SQLITE_BUSY', 5), coded('ERR_POSTGRES_CONNECTION_REFUSED'), coded('ERR_POSTGRES_SERVER_ERROR', '57P01'), new DatabaseTimeout()]) {
    expect(isDatabaseUnavailable(e)).toBe(true)
    // drizzle's "Failed query" and Elysia's parse error (authentication in the body-parse hook) keep it as their cause.
    expect(isDatabaseUnavailable(new Error('Failed query', { cause: new Error('parse', { cause: e }) }))).toBe(true)
  }
  // A refused connection to the router or another peer, a unique violation, a bug: not an outage.
  for (const e of [
    coded('ECONNREFUSED'),
    coded('ConnectionRefused'),
    coded('ERR_POSTGRES_SERVER_ERROR', '23505'),
    coded('SQLITE_CONSTRAINT_UNIQUE', 2067),
    new TypeError('x is undefined'),
    null,
  ])
    expect(isDatabaseUnavailable(e)).toBe(false)
})
