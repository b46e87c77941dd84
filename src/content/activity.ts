// The activity log's words, one set for the page, the terminal and the CSV: how a request's
// protocol, outcome and router are named in Russian.

export const ACTIVITY_PROTOCOLS = ['chat', 'responses', 'messages', 'embeddings', 'images', 'speech', 'transcription'] as const
export type ActivityProtocol = (typeof ACTIVITY_PROTOCOLS)[number]

/** The /v1 route a request came through. */
export const PROTOCOL_LABELS: Record<ActivityProtocol, string> = {
  chat: 'Chat Completions',
  responses: 'Responses',
  messages: 'Anthropic Messages',
  embeddings: 'Эмбеддинги',
  images: 'Изображения',
  speech: 'Озвучка',
  transcription: 'Распознавание речи',
}

export const ACTIVITY_STATUSES = ['success', 'error', 'cancelled'] as const
export type ActivityStatus = (typeof ACTIVITY_STATUSES)[number]

export const STATUS_LABELS: Record<ActivityStatus, string> = { success: 'Успешно', error: 'Ошибка', cancelled: 'Прерван' }

const UPSTREAM_SHORT_LABELS: Record<string, string> = { primary: 'основной', fallback: 'резервный' }
/** Which upstream answered: the primary router, the second one while the first was down, or an UPSTREAMS_FILE id as it is. */
export const upstreamShortLabel = (upstream: string) => UPSTREAM_SHORT_LABELS[upstream] ?? upstream

/** A request made in the Playground (a web session) carries no API key. */
export const WEB_SESSION_LABEL = 'Веб-сессия'
/** A key deleted since: its requests stay in the log, under the name it had (older rows: without one). */
export const DELETED_KEY_LABEL = 'Удалённый ключ'
export const deletedKeyLabel = (name: string | null) => (name ? `${name} (удалён)` : DELETED_KEY_LABEL)
