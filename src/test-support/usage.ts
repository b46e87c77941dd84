// The facts of a usage row, for the tests that settle holds on the store itself.
import type { UsageFacts } from '../billing/holds'

export const usageFacts: UsageFacts = {
  endpoint: 'chat',
  model: 'openai/gpt-4o',
  promptTokens: 10,
  completionTokens: 5,
  totalTokens: 15,
  upstreamCostUsd: null,
  upstreamId: null,
  responseId: null,
  upstream: 'primary',
  status: 'success',
  error: null,
  durationMs: 1,
  stream: false,
}
