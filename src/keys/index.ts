import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import { envelope, errors, ok } from '../lib/http'
import { ApiKey, CreatedApiKey, CreateKeyBody, KeyParams, PatchKeyBody } from './model'
import type { KeysService } from './service'

export function keysRoutes(keys: KeysService, guard: AuthGuard) {
  return new Elysia({ name: 'keys', prefix: '/api/auth/api-keys', detail: { tags: ['API ключи'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .get('', async ({ user }) => ok(await keys.list(user.id)), {
      auth: true,
      response: { 200: envelope(t.Array(ApiKey)), ...errors(401) },
      detail: { summary: 'Список API-ключей (без самих ключей), новые сверху' },
    })
    .post('', async ({ user, body, status }) => status(201, ok(await keys.create(user.id, body.name))), {
      auth: true,
      body: CreateKeyBody,
      response: { 201: envelope(CreatedApiKey), ...errors(400, 401) },
      detail: { summary: 'Создание ключа: полный ключ возвращается только в этом ответе' },
    })
    .patch('/:id', async ({ user, params, body }) => ok(await keys.update(user.id, params.id, body)), {
      auth: true,
      params: KeyParams,
      body: PatchKeyBody,
      response: { 200: envelope(ApiKey), ...errors(400, 401, 404) },
      detail: { summary: 'Изменение названия, активности или месячного лимита (рубли, null — без лимита)' },
    })
    .delete(
      '/:id',
      async ({ user, params }) => {
        await keys.remove(user.id, params.id)
        return ok({ ok: true })
      },
      {
        auth: true,
        params: KeyParams,
        response: { 200: envelope(t.Object({ ok: t.Boolean() })), ...errors(401, 404) },
        detail: { summary: 'Удаление ключа: запросы с ним сразу перестают работать' },
      },
    )
}
