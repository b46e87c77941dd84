// The OpenAI-compatible face, /v1: the caller macro (auth.ts) and the routes by protocol — chat,
// Responses (HTTP, stored, WebSocket), Anthropic Messages, embeddings, images and their files, audio,
// and the lookups (models, generation, key) — on one pipeline (pipeline.ts). Also the Playground's
// estimate under /api.
import { Elysia } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import { callerAuth } from './auth'
import type { ImageStore } from './files'
import { pipeline } from './pipeline'
import { protocolsService } from './protocols'
import { audioRoutes } from './routes/audio'
import { chatRoutes } from './routes/chat'
import { embeddingsRoutes } from './routes/embeddings'
import { imagesRoutes } from './routes/images'
import { lookupRoutes } from './routes/lookups'
import { messagesRoutes } from './routes/messages'
import { responsesRoutes } from './routes/responses'
import type { GatewayDeps } from './types'

export { estimateRoutes } from './routes/estimate'

export function gatewayRoutes(deps: GatewayDeps & { images: ImageStore }, guard: AuthGuard) {
  const auth = callerAuth(deps.db, guard, deps.config.trustProxy)
  const pipe = pipeline(deps)
  const protocols = protocolsService(deps, pipe)
  return new Elysia({ name: 'gateway', prefix: '/v1', detail: { tags: ['OpenAI-совместимый API'] } })
    .use(lookupRoutes(deps, auth))
    .use(chatRoutes(protocols, auth))
    .use(responsesRoutes(deps, protocols, auth))
    .use(messagesRoutes(protocols, auth))
    .use(embeddingsRoutes(protocols, auth))
    .use(imagesRoutes(deps, pipe, deps.images, auth))
    .use(audioRoutes(deps, pipe, auth))
}
