import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import { envelope, errors, ok } from '../lib/http'
import { ApiKey, CreatedApiKey, CreateKeyBody, KeyParams, PatchKeyBody } from './model'
import type { KeysService } from './service'

export function keysRoutes(keys: KeysService, guard: AuthGuard) {
  return new Elysia({ name: 'keys', prefix: '/api/auth/api-keys', detail: { tags: ['API ключи'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .get('', async ({ acting }) => ok(await keys.list(acting)), {
      account: 'keys.own',
      response: { 200: envelope(t.Array(ApiKey)), ...errors(401, 403, 404) },
      detail: { summary: 'Список API-ключей (без самих ключей), новые сверху; с X-Team-Id — ключи команды (владельцу и администратору — все)' },
    })
    .post(
      '',
      async ({ acting, body, status }) =>
        status(
          201,
          ok(await keys.create(acting, { name: body.name, residency: body.residency, kind: body.kind, policy: body, budget: body.budget, fitToBalance: body.fitToBalance })),
        ),
      {
        account: 'keys.own',
        body: CreateKeyBody,
        response: { 201: envelope(CreatedApiKey), ...errors(400, 401, 403, 404) },
        detail: {
          summary: 'Создание ключа: полный ключ возвращается только в этом ответе; с X-Team-Id — ключ команды, принадлежащий вызывающему',
          description:
            'kind: inference (запросы к /v1) или management (управление ключами, баланс и активность). Политика: rpmLimit, tpmLimit, allowedModels (шаблоны вроде openai/*), allowedIps (адреса и CIDR), expiresAt (ISO); null — без ограничения. Ключ команды начинается с политики по умолчанию команды и может только сузить её список моделей.',
        },
      },
    )
    .patch('/:id', async ({ acting, params, body }) => ok(await keys.update(acting, params.id, body)), {
      account: 'keys.own',
      params: KeyParams,
      body: PatchKeyBody,
      response: { 200: envelope(ApiKey), ...errors(400, 401, 403, 404) },
      detail: {
        summary:
          'Изменение названия, активности, хранения данных (residency: any | ru), бюджета (budget {limitRub | null, period: day | week | month | total}, сброс в 00:00 МСК) или политики (rpmLimit, tpmLimit, allowedModels, allowedIps, expiresAt; null снимает ограничение)',
        description: 'monthlyLimit (рубли или null) по-прежнему принимается: это бюджет с периодом month.',
      },
    })
    .delete(
      '/:id',
      async ({ acting, params }) => {
        await keys.remove(acting, params.id)
        return ok({ ok: true })
      },
      {
        account: 'keys.own',
        params: KeyParams,
        response: { 200: envelope(t.Object({ ok: t.Boolean() })), ...errors(401, 403, 404) },
        detail: { summary: 'Удаление ключа: запросы с ним сразу перестают работать' },
      },
    )
}
