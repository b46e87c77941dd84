// POST /v1/chat/completions: OpenAI's chat protocol, the router's own. Its shape is chatShape
// (shape.ts, shared with the Playground's estimate); its answers are read by chatWire.

import { sseData } from '../lib/sse'
import { chargedUsage, countEvents, parseEvent, type Usage, type Wire } from './wire'

/** The parts of an OpenAI chat request we read; everything else is passed through untouched. */
export type ChatBody = {
  model?: string
  models?: string[]
  n?: number
  messages: Array<{ role: string; content?: unknown }>
  max_tokens?: number
  max_completion_tokens?: number
  stream?: boolean
  stream_options?: { include_usage?: boolean }
  [k: string]: unknown
}

type ChatJson = { id?: string; model?: string; error?: { message?: string }; choices?: Array<{ error?: { message?: string } }>; usage?: Usage }
/** The fields of a chat stream event the gateway reads. */
type ChatEvent = { id?: string; model?: unknown; error?: { message?: string }; usage?: Usage }

export const chatWire: Wire = {
  path: '/chat/completions',
  answer(json) {
    const j = json as ChatJson
    const err = j.error ?? j.choices?.[0]?.error
    if (err || !Array.isArray(j.choices)) return { error: err?.message ?? 'ответ без choices', id: j.id }
    return { usage: j.usage, model: j.model, id: j.id }
  },
  withCharge: (json, usage, charged) => ({ ...json, usage: chargedUsage(usage, charged) }),
  reader: () => ({
    plain: (block) => !block.includes('"usage"') && !block.includes('"error"'),
    pieces: (block) => countEvents(block, ['"content"', '"images"']),
    inspect(_event, data, needId) {
      if (!data.includes('"usage"') && !data.includes('"error"'))
        return { piece: data.includes('"content"') || data.includes('"images"'), id: needId ? parseEvent<ChatEvent>(data)?.id : undefined }
      const obj = parseEvent<ChatEvent>(data)
      if (!obj) return 'drop'
      if (obj.error) return { id: obj.id, error: obj.error.message ?? '' }
      if (obj.usage) return { id: obj.id, usage: obj.usage, model: obj.model, render: (usage, charged) => sseData({ ...obj, usage: chargedUsage(usage, charged) }) }
      return { id: obj.id, piece: data.includes('"content"') }
    },
    errorEvent: (message) => sseData({ error: { message, type: 'server_error', code: 'upstream_error', param: null } }),
    keepAlive: ': keep-alive\n\n',
  }),
}
