/**
 * An upstream as the usage row, /v1/generation and the status page name it: its UPSTREAMS_FILE `id`,
 * or `primary` and `fallback` for the routers OPENROUTER_* and FALLBACK_UPSTREAM_* configure.
 */
export type UpstreamName = string

const LABELS: Record<string, string> = {
  primary: 'Основной провайдер моделей',
  fallback: 'Резервный провайдер моделей',
}

/** How the status page and the activity log name an upstream. */
export const upstreamLabel = (name: UpstreamName) => LABELS[name] ?? `Провайдер моделей «${name}»`
