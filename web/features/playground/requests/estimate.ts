// «Оценка: до X ₽»: the server's own bound for the request as it would be sent now. The body comes
// from request-body.ts (the same builder sending uses) and POST /api/playground/estimate answers
// from the same planning as the hold, so the charge never exceeds the figure shown.
import { useEffect, useRef, useState } from 'react'
import type { Estimate } from '../../../../src/wire'
import { api, errorMessage } from '../../../lib/api'
import type { ChatCompletionBody, ImagesBody, SpeechBody } from '../types'

// The wire type, declared by the route schema (src/gateway/model.ts EstimateResult).
export type { Estimate }

export type EstimateBody =
  | { chat: ChatCompletionBody }
  | { images: ImagesBody }
  | { speech: SpeechBody }
  | { transcription: { model: string; seconds: number } }
  /** a comparison: the same prompt to several models at once, estimated as their holds together */
  | { compare: ChatCompletionBody[] }

export interface EstimateState {
  /** the last answer; kept while a newer one is on its way, so the figure does not flicker */
  data: Estimate | null
  /** why there is no estimate (shown as «—») */
  error: string | null
  loading: boolean
}

export const ESTIMATE_PATH = '/api/playground/estimate'
export const ESTIMATE_DELAY_MS = 300
export const ESTIMATE_ERROR = 'Не удалось оценить стоимость'

/**
 * Asks for an estimate ~300 ms after `key` (a cheap summary of everything the body depends on)
 * last changed; `build` makes the body then. A newer key cancels the call in flight. `key` null
 * keeps what is shown (while a reply is on its way, the conversation changes with every token).
 */
export function useEstimate(key: string | null, build: () => Promise<EstimateBody>): EstimateState {
  const [answer, setAnswer] = useState<{ key: string | null; data: Estimate | null; error: string | null }>({ key: null, data: null, error: null })
  const buildRef = useRef(build)
  buildRef.current = build

  useEffect(() => {
    if (key === null) return
    const ac = new AbortController()
    const timer = setTimeout(() => {
      void (async () => {
        try {
          const body = await buildRef.current()
          if (ac.signal.aborted) return
          const data = await api.post<Estimate>(ESTIMATE_PATH, body, { signal: ac.signal, fallback: ESTIMATE_ERROR })
          if (!ac.signal.aborted) setAnswer({ key, data, error: null })
        } catch (error) {
          if (!ac.signal.aborted) setAnswer({ key, data: null, error: errorMessage(error, ESTIMATE_ERROR) })
        }
      })()
    }, ESTIMATE_DELAY_MS)
    return () => {
      clearTimeout(timer)
      ac.abort()
    }
  }, [key])

  // Loading is known at once from the key, not one effect later: no stale «ready» in between.
  return { data: answer.data, error: answer.error, loading: key !== null && answer.key !== key }
}

/** How an estimate reads, for the composer line and the image settings alike. */
export function estimateDisplay(state: EstimateState, hint: string) {
  const { data, error } = state
  const overBalance = !!data && !data.affordable
  return {
    /** null: the model's price is variable, there is no upper figure */
    figure: data ? data.maxCost : error ? '—' : '…',
    overBalance,
    title: overBalance && data.message ? data.message : (error ?? hint),
    state: state.loading ? 'loading' : error ? 'error' : 'ready',
  } as const
}

/**
 * Issue 29: sending is refused before it is tried when the server's own estimate says the money
 * (or a budget) will not cover the request — with the reason and one way out: a shorter answer
 * that the money affords (`reduceTo` tokens), or topping up. No estimate (an error): not blocked,
 * the server decides.
 */
export function sendGuard(state: EstimateState): { blocked: boolean; reduceTo: number | null } {
  const data = state.data
  if (!data || data.affordable) return { blocked: false, reduceTo: null }
  return { blocked: true, reduceTo: data.affordableTokens ?? null }
}
