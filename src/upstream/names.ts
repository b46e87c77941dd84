// The routers a request can be answered by, as the usage row, /v1/generation and the status page name them.
export const UPSTREAM_NAMES = ['primary', 'fallback'] as const
export type UpstreamName = (typeof UPSTREAM_NAMES)[number]

export const UPSTREAM_LABELS: Record<UpstreamName, string> = {
  primary: 'Основной провайдер моделей',
  fallback: 'Резервный провайдер моделей',
}
