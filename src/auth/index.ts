import { Elysia, t } from 'elysia'
import type { Config } from '../config'
import { unauthorized } from '../lib/errors'
import { clientIp, envelope, errors, ok } from '../lib/http'
import { referralCodeFromCookie } from '../promo/service'
import { type AuthGuard, bearer } from './guard'
import {
  AuthResult,
  ChangePasswordBody,
  Credentials,
  DeleteAccountBody,
  ForgotBody,
  LogoutBody,
  Message,
  PublicUser,
  RefreshBody,
  RegisterBody,
  ResetBody,
  Session,
  TokenPair,
  Verified,
  VerifyBody,
} from './model'
import type { AuthService } from './service'

export function authRoutes(config: Config, auth: AuthService, guard: AuthGuard) {
  return new Elysia({ name: 'auth', prefix: '/api/auth', detail: { tags: ['Аккаунт'] } })
    .use(guard)
    .derive(({ request, server }) => ({ ip: clientIp(request, server, config.trustProxy) }))
    .post(
      '/register',
      async ({ body, ip, headers, signAccess, status }) => {
        const referralCode = body.referralCode ?? referralCodeFromCookie(headers.cookie)
        const { user, refreshToken, sid } = await auth.register({ ...body, referralCode }, ip, headers['user-agent'])
        return status(201, ok({ user, refreshToken, accessToken: await signAccess(user.id, sid) }))
      },
      {
        body: RegisterBody,
        response: { 201: envelope(AuthResult), ...errors(400, 409, 429) },
        detail: {
          summary: 'Регистрация: создаёт аккаунт, открывает сессию и отправляет письмо для подтверждения e-mail',
          description: 'Приветственный бонус начисляется после подтверждения адреса (или сразу, если REQUIRE_EMAIL_VERIFICATION=false).',
        },
      },
    )
    .post(
      '/login',
      async ({ body, ip, headers, signAccess }) => {
        const { user, refreshToken, sid } = await auth.login(body, ip, headers['user-agent'])
        return ok({ user, refreshToken, accessToken: await signAccess(user.id, sid) })
      },
      {
        body: Credentials,
        response: { 200: envelope(AuthResult), ...errors(400, 401, 429) },
        detail: {
          summary: 'Вход по e-mail и паролю',
          description:
            'После 5 неудачных попыток для пары «адрес + IP» (и 30 — для одного IP) вход с этого IP временно закрыт: 429 с Retry-After, пауза удваивается до 15 минут. Попытки с других адресов это не затрагивает.',
        },
      },
    )
    .post(
      '/refresh',
      async ({ body, signAccess }) => {
        const { userId, refreshToken, sid } = await auth.refresh(body.refreshToken)
        return ok({ accessToken: await signAccess(userId, sid), refreshToken })
      },
      {
        body: RefreshBody,
        response: { 200: envelope(TokenPair), ...errors(400, 401) },
        detail: {
          summary: 'Обновление пары токенов',
          description: 'Refresh-токен одноразовый: повторное предъявление отзывает всю сессию.',
        },
      },
    )
    .post(
      '/logout',
      async ({ body, headers, accessJwt }) => {
        const claims = await accessJwt.verify(bearer(headers.authorization))
        await auth.logout(body.refreshToken, claims ? { sid: claims.sid, userId: claims.sub } : undefined)
        return ok({ ok: true })
      },
      {
        body: LogoutBody,
        response: { 200: envelope(t.Object({ ok: t.Boolean() })), ...errors(400) },
        detail: {
          summary: 'Выход: завершает сессию — refresh-токен и выданные по нему access-токены перестают действовать сразу',
          description: 'Сессию можно указать refresh-токеном в теле и/или access-токеном в заголовке Authorization.',
        },
      },
    )
    .post(
      '/logout-all',
      async ({ user }) => {
        await auth.logoutAll(user.id)
        return ok({ ok: true })
      },
      {
        auth: true,
        response: { 200: envelope(t.Object({ ok: t.Boolean() })), ...errors(401) },
        detail: { summary: 'Выйти на всех устройствах: завершает все сессии пользователя и их токены', security: [{ bearerAuth: [] }] },
      },
    )
    .post('/verify-email', async ({ body }) => ok(await auth.verifyEmail(body.token)), {
      body: VerifyBody,
      response: { 200: envelope(Verified), ...errors(400) },
      detail: { summary: 'Подтверждение e-mail по ссылке из письма; приветственный бонус начисляется один раз' },
    })
    .post('/resend-verification', async ({ user, ip }) => ok(await auth.resendVerification(user.id, ip)), {
      auth: true,
      response: { 200: envelope(Message), ...errors(400, 401, 429) },
      detail: { summary: 'Отправить письмо для подтверждения e-mail ещё раз', security: [{ bearerAuth: [] }] },
    })
    .post('/forgot-password', async ({ body, ip }) => ok(await auth.forgotPassword(body, ip)), {
      body: ForgotBody,
      response: { 200: envelope(Message), ...errors(400, 429) },
      detail: { summary: 'Запрос письма для сброса пароля (ответ не зависит от наличия аккаунта)' },
    })
    .post('/reset-password', async ({ body }) => ok(await auth.resetPassword(body)), {
      body: ResetBody,
      response: { 200: envelope(Message), ...errors(400) },
      detail: { summary: 'Установка нового пароля по токену из письма' },
    })
    .post(
      '/change-password',
      async ({ body, headers, accessJwt, user, ip }) => {
        const claims = await accessJwt.verify(bearer(headers.authorization))
        if (!claims) throw unauthorized()
        return ok(await auth.changePassword(user.id, claims.sid, body, ip))
      },
      {
        auth: true,
        body: ChangePasswordBody,
        response: { 200: envelope(Message), ...errors(400, 401, 429) },
        detail: {
          summary: 'Смена пароля: текущий и новый; все остальные сессии завершаются, текущая остаётся',
          security: [{ bearerAuth: [] }],
        },
      },
    )
    .get(
      '/sessions',
      async ({ headers, accessJwt, user }) => {
        const claims = await accessJwt.verify(bearer(headers.authorization))
        if (!claims) throw unauthorized()
        return ok(await auth.sessions(user.id, claims.sid))
      },
      {
        auth: true,
        response: { 200: envelope(t.Array(Session)), ...errors(401) },
        detail: { summary: 'Открытые сессии (устройства) пользователя; current — эта', security: [{ bearerAuth: [] }] },
      },
    )
    .delete('/account', async ({ body, user, ip }) => ok(await auth.deleteAccount(user.id, body, ip)), {
      auth: true,
      body: DeleteAccountBody,
      response: { 200: envelope(Message), ...errors(400, 401, 429) },
      detail: {
        summary: 'Удалить свой аккаунт (подтверждение — e-mail аккаунта)',
        description:
          'Ключи и сессии перестают действовать сразу, адрес обезличивается; история платежей и запросов хранится сроки, требуемые законом. Остаток баланса автоматически не возвращается — возврат оформляется отдельно по правилам возврата.',
        security: [{ bearerAuth: [] }],
      },
    })
    .get('/profile', ({ user }) => ok({ user }), {
      auth: true,
      response: { 200: envelope(t.Object({ user: PublicUser })), ...errors(401) },
      detail: { summary: 'Профиль текущего пользователя', security: [{ bearerAuth: [] }] },
    })
}
