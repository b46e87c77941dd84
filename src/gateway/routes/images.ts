// POST /v1/images (and the official SDK's /v1/images/generations): pictures on the pipeline
// (images.ts); GET /v1/files/:name serves them by a signed link (files.ts).
import { Elysia, t } from 'elysia'
import { OpenAIError } from '../../lib/errors'
import type { CallerAuth } from '../auth'
import type { ImageStore } from '../files'
import { imagesService } from '../images'
import { errorsOf, ImagesRequest } from '../model'
import type { Pipeline } from '../pipeline'
import type { GatewayDeps } from '../types'

export function imagesRoutes(deps: GatewayDeps, pipe: Pipeline, files: ImageStore, auth: CallerAuth) {
  const images = imagesService(deps, pipe, files)
  const imagesHook = (summary: string) => ({
    caller: true as const,
    body: ImagesRequest,
    response: { 200: t.Any({ description: 'OpenAI ImagesResponse: {created, data:[{url|b64_json, revised_prompt}], usage}' }), ...errorsOf(400, 401, 402, 404, 502, 503) },
    detail: { summary },
  })

  return new Elysia({ name: 'gateway-images' })
    .use(auth)
    .post('/images', async ({ caller, body, request }) => await images.generate(caller, body, request.signal), imagesHook('Генерация изображений (формат OpenAI images.generate)'))
    .post(
      '/images/generations',
      async ({ caller, body, request }) => await images.generate(caller, body, request.signal),
      imagesHook('Генерация изображений — путь официального SDK OpenAI'),
    )
    .get(
      '/files/:name',
      async ({ params, query }) => {
        const found = await files.open(params.name, query.exp, query.sig)
        if (!found) throw new OpenAIError(404, 'Файл не найден или ссылка устарела', 'invalid_request_error', 'file_not_found')
        return new Response(found.file, {
          headers: {
            'content-type': found.type,
            // Bytes the router sent us: a picture, never a page of ours, even when opened directly.
            'content-security-policy': "default-src 'none'; img-src 'self'; sandbox",
            // A deleted account's pictures must stop opening at once: no copy outlives the check for long.
            'cache-control': 'private, max-age=300',
          },
        })
      },
      {
        params: t.Object({ name: t.String() }),
        query: t.Object({ exp: t.Optional(t.String()), sig: t.Optional(t.String()) }),
        response: { 200: t.Any({ description: 'Файл изображения (image/png, image/jpeg, …)' }), ...errorsOf(404) },
        detail: { summary: 'Сгенерированное изображение по подписанной ссылке' },
      },
    )
}
