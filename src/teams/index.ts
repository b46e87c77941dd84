import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import type { Config } from '../config'
import { clientIp, envelope, errors, ok } from '../lib/http'
import {
  Accepted,
  AuditEntry,
  AuditQuery,
  CreateTeamBody,
  Invitation,
  InvitationParams,
  InvitationPreview,
  InviteBody,
  MemberParams,
  Ok,
  PatchMemberBody,
  RemovedMember,
  RenameTeamBody,
  TeamDetails,
  TeamMember,
  TeamParams,
  TeamPolicy,
  TeamPolicyBody,
  TeamSummary,
  TokenBody,
  TransferBody,
  WebhookBody,
  WebhookSecret,
  WebhookState,
} from './model'
import type { TeamsService } from './service'

const security = [{ bearerAuth: [] }]

/** /api/teams: every route checks the caller's membership and role on the server (404 for outsiders, 403 for a role without the right). */
export function teamsRoutes(config: Config, teams: TeamsService, guard: AuthGuard) {
  return new Elysia({ name: 'teams', prefix: '/api/teams', detail: { tags: ['Команды'] } })
    .use(guard)
    .derive(({ request, server }) => ({ ip: clientIp(request, server, config.trustProxy) }))
    .post('', async ({ user, body, ip, status }) => status(201, ok(await teams.create(user, body.name, ip))), {
      auth: true,
      body: CreateTeamBody,
      response: { 201: envelope(TeamSummary), ...errors(400, 401) },
      detail: { summary: 'Создать команду: вызывающий становится её владельцем', security },
    })
    .get('', async ({ user }) => ok(await teams.list(user.id)), {
      auth: true,
      response: { 200: envelope(t.Array(TeamSummary)), ...errors(401) },
      detail: { summary: 'Команды, в которых состоит пользователь, с его ролью', security },
    })
    .post('/invitations/lookup', async ({ body }) => ok(await teams.lookupInvitation(body.token)), {
      body: TokenBody,
      response: { 200: envelope(InvitationPreview), ...errors(400) },
      detail: { summary: 'Приглашение по токену из письма: команда, адрес и роль (до принятия)' },
    })
    .post('/invitations/accept', async ({ user, body, ip }) => ok(await teams.accept(user, body.token, ip)), {
      auth: true,
      body: TokenBody,
      response: { 200: envelope(Accepted), ...errors(400, 401, 403, 409) },
      detail: { summary: 'Принять приглашение: нужен вход в аккаунт с приглашённым адресом; ссылка одноразовая', security },
    })
    .get('/:id', async ({ user, params, ip }) => ok(await teams.get(user, params.id, ip)), {
      auth: true,
      params: TeamParams,
      response: { 200: envelope(TeamDetails), ...errors(401, 404) },
      detail: { summary: 'Команда с участниками, их ролями и бюджетами', security },
    })
    .patch('/:id', async ({ user, params, body, ip }) => ok(await teams.update(user, params.id, body, ip)), {
      auth: true,
      params: TeamParams,
      body: RenameTeamBody,
      response: { 200: envelope(TeamSummary), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Переименовать команду или задать хранение данных (residency: any | ru) — владелец, администратор', security },
    })
    .patch('/:id/policy', async ({ user, params, body, ip }) => ok(await teams.setPolicy(user, params.id, body, ip)), {
      auth: true,
      params: TeamParams,
      body: TeamPolicyBody,
      response: { 200: envelope(TeamPolicy), ...errors(400, 401, 403, 404) },
      detail: {
        summary: 'Политика ключей команды — владелец, администратор: модели для всей команды и политика новых ключей (ключ может её только сузить)',
        description:
          'allowedModels: шаблоны (openai/*) или null; keyDefaults: { rpmLimit, tpmLimit, allowedModels, allowedIps, expiresInDays } или null. Записывается в журнал действий.',
        security,
      },
    })
    .delete('/:id', async ({ user, params, ip }) => ok(await teams.remove(user, params.id, ip)), {
      auth: true,
      params: TeamParams,
      response: { 200: envelope(t.Object({ id: t.String(), deleted: t.Literal(true) })), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Удалить команду (владелец; баланс должен быть нулевым)', security },
    })
    .post('/:id/transfer', async ({ user, params, body, ip }) => ok(await teams.transfer(user, params.id, body.userId, ip)), {
      auth: true,
      params: TeamParams,
      body: TransferBody,
      response: { 200: envelope(Ok), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Передать владение участнику (владелец; прежний владелец становится администратором)', security },
    })
    .post('/:id/invitations', async ({ user, params, body, ip, status }) => status(201, ok(await teams.invite(user, params.id, body, ip))), {
      auth: true,
      params: TeamParams,
      body: InviteBody,
      response: { 201: envelope(Invitation), ...errors(400, 401, 403, 404, 409, 429) },
      detail: { summary: 'Пригласить по e-mail: письмо с одноразовой ссылкой /invite/<token> на 7 дней', security },
    })
    .get('/:id/invitations', async ({ user, params, ip }) => ok(await teams.invitations(user, params.id, ip)), {
      auth: true,
      params: TeamParams,
      response: { 200: envelope(t.Array(Invitation)), ...errors(401, 403, 404) },
      detail: { summary: 'Открытые приглашения', security },
    })
    .delete('/:id/invitations/:invitationId', async ({ user, params, ip }) => ok(await teams.revokeInvitation(user, params.id, params.invitationId, ip)), {
      auth: true,
      params: InvitationParams,
      response: { 200: envelope(Ok), ...errors(401, 403, 404, 409) },
      detail: { summary: 'Отозвать приглашение (409, если его уже приняли)', security },
    })
    .patch('/:id/members/:userId', async ({ user, params, body, ip }) => ok(await teams.updateMember(user, params.id, params.userId, body, ip)), {
      auth: true,
      params: MemberParams,
      body: PatchMemberBody,
      response: { 200: envelope(TeamMember), ...errors(400, 401, 403, 404) },
      detail: {
        summary: 'Роль и бюджет участника: budget {limitRub | null, period: day | week | month | total} — сброс в 00:00 МСК',
        security,
      },
    })
    .delete('/:id/members/:userId', async ({ user, params, ip }) => ok(await teams.removeMember(user, params.id, params.userId, ip)), {
      auth: true,
      params: MemberParams,
      response: { 200: envelope(RemovedMember), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Исключить участника (или выйти самому): его ключи команды отзываются сразу', security },
    })
    .get('/:id/audit', async ({ user, params, query, ip }) => ok(await teams.auditLog(user, params.id, query.limit ?? 100, query.before, ip)), {
      auth: true,
      params: TeamParams,
      query: AuditQuery,
      response: { 200: envelope(t.Array(AuditEntry)), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Журнал действий (владелец, администратор): хранится год; ключи, токены и пароли в него не попадают', security },
    })
    .get('/:id/webhook', async ({ user, params, ip }) => ok(await teams.webhook(user, params.id, ip)), {
      auth: true,
      params: TeamParams,
      response: { 200: envelope(WebhookState), ...errors(401, 403, 404) },
      detail: { summary: 'Вебхук команды и последние доставки', security },
    })
    .put('/:id/webhook', async ({ user, params, body, ip }) => ok(await teams.setWebhook(user, params.id, body.url, ip)), {
      auth: true,
      params: TeamParams,
      body: WebhookBody,
      response: { 200: envelope(WebhookSecret), ...errors(400, 401, 403, 404) },
      detail: {
        summary: 'Задать адрес вебхука: ответ содержит новый секрет подписи (показывается один раз)',
        description:
          'Уведомления — POST JSON с заголовками X-Signature: sha256=<HMAC-SHA256 тела с секретом>, X-Webhook-Id (id доставки, он же в теле) и X-Webhook-Event. Неуспешные доставки повторяются с нарастающей паузой.',
        security,
      },
    })
    .delete('/:id/webhook', async ({ user, params, ip }) => ok(await teams.deleteWebhook(user, params.id, ip)), {
      auth: true,
      params: TeamParams,
      response: { 200: envelope(Ok), ...errors(401, 403, 404) },
      detail: { summary: 'Отключить вебхук', security },
    })
    .post('/:id/webhook/test', async ({ user, params, ip }) => ok(await teams.testWebhook(user, params.id, ip)), {
      auth: true,
      params: TeamParams,
      response: { 200: envelope(t.Object({ deliveryId: t.Union([t.String(), t.Null()]) })), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Отправить тестовое событие на вебхук', security },
    })
}
