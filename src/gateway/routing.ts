// Which upstreams may answer a request, in UPSTREAMS_FILE order, and at whose prices: the request's
// candidates (shape.ts) over the catalogue's routes (catalog/routes.ts). A router's route keeps the
// candidate as the router prices it (its `models` fallbacks and variants are the router's to try);
// another upstream answers one named model, as named, on chat completions, Responses and Messages
// (the last two translated: upstream/kinds/translate.ts) or, for an embeddings model, embeddings, and
// is a candidate of its own, priced in its currency. The hold bounds the dearest of them
// (estimate.ts); the charge is the route's that answered (charge.ts). A caller bound to Russia (`ru`)
// is sent only to upstreams that keep data in Russia.
import { RUB_RATE } from '../catalog/routes'
import { type Catalog, isEmbedding } from '../catalog/service'
import { OpenAIError } from '../lib/errors'
import type { Endpoint } from '../money'
import type { ResidencyRule } from '../teams/schema'
import type { Upstreams } from '../upstream/pool'
import type { Candidate, RequestShape } from './estimate'

export type { ResidencyRule }

/** One upstream to try: its id, and the model name to send it when it is not the one asked for. */
export type Target = { upstream: string; model?: string }

/** 403 `data_residency_violation`: the caller must keep data in Russia and the model has no route there. */
export const residencyViolation = (model: string) =>
  new OpenAIError(
    403,
    `Модель ${model} недоступна: для этого ключа или команды включено хранение данных только в РФ, а модель обслуживают провайдеры за пределами России. Выберите модель с отметкой «Данные остаются в России».`,
    'invalid_request_error',
    'data_residency_violation',
    { param: 'model' },
  )

/** The protocols the upstreams that are not routers answer (Responses and Messages by translation to chat). */
const TRANSLATED: ReadonlySet<Endpoint> = new Set(['chat', 'responses', 'messages'])

const chatOnly = (model: string) =>
  new OpenAIError(
    400,
    `Модель ${model} доступна через /v1/chat/completions, /v1/responses и /v1/messages (модели эмбеддингов — через /v1/embeddings), по одной модели в запросе (без models и вариантов).`,
    'invalid_request_error',
    'unsupported_endpoint',
    { param: 'model' },
  )

/**
 * The shape with one candidate per route that may answer, and the upstreams to try. Throws the
 * caller's error when no route may: 403 for residency, 400 for a model another upstream serves
 * asked for on a path or in a form only the router takes.
 */
export function routeRequest(shape: RequestShape, endpoint: Endpoint, residency: ResidencyRule, catalog: Pick<Catalog, 'routes'>, upstreams: Pick<Upstreams, 'list'>) {
  const single = shape.candidates.length === 1
  const candidates: Candidate[] = []
  const routers = new Set<string>()
  const others = new Map<string, string>()
  for (const c of shape.candidates) {
    const all = catalog.routes(c.model.id)
    if (all.length === 0) {
      candidates.push(c) // not in the catalogue's routes (a model only a router's list names): as before
      for (const u of upstreams.list()) if (u.kind === 'openrouter' && (residency === 'any' || u.residency === 'ru')) routers.add(u.name)
      continue
    }
    const allowed = residency === 'ru' ? all.filter((r) => r.residency === 'ru') : all
    if (allowed.length === 0) throw residencyViolation(c.model.id)
    let viaRouter = false
    let any = false
    for (const r of allowed) {
      if (r.kind === 'openrouter') {
        routers.add(r.upstream)
        if (!viaRouter) candidates.push({ model: r.row, variant: c.variant, route: r })
        viaRouter = any = true
        continue
      }
      const answers = isEmbedding(r.row) ? endpoint === 'embeddings' : TRANSLATED.has(endpoint)
      if (!single || c.variant || !answers) continue
      candidates.push({ model: r.row, variant: null, route: r, ...(r.currency === 'RUB' ? { rate: RUB_RATE } : {}) })
      others.set(r.upstream, r.upstreamModel)
      any = true
    }
    if (!any) throw chatOnly(c.model.id)
  }
  const targets: Target[] = []
  for (const u of upstreams.list()) {
    if (u.kind === 'openrouter' ? routers.has(u.name) : others.has(u.name))
      targets.push(u.kind === 'openrouter' ? { upstream: u.name } : { upstream: u.name, model: others.get(u.name)! })
  }
  return { shape: { ...shape, candidates }, targets }
}
