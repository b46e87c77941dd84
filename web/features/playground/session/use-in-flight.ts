// The reply on its way: one at a time per session. «Стоп» aborts it, and so does leaving the page
// (the gateway then bills only what was generated).
import { useCallback, useEffect, useRef, useState } from 'react'

export type InFlight = ReturnType<typeof useInFlight>

export function useInFlight() {
  const [pending, setPending] = useState(false)
  const abortRef = useRef<AbortController | null>(null)

  /** A request starts: its signal is what «Стоп» aborts. */
  const begin = useCallback(() => {
    const ac = new AbortController()
    abortRef.current = ac
    setPending(true)
    return ac
  }, [])

  /** The request `ac` has ended (answered, failed or stopped). */
  const end = useCallback((ac: AbortController) => {
    if (abortRef.current === ac) abortRef.current = null
    setPending(false)
  }, [])

  const stop = useCallback(() => abortRef.current?.abort(), [])
  useEffect(() => () => abortRef.current?.abort(), [])

  return { pending, begin, end, stop }
}
