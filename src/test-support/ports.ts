// Loopback ports for the servers tests start (the gateway, PostgreSQL, the fakes).

/** A loopback port nothing listens on right now (the server binds it a moment later). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}
