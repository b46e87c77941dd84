import { Elysia } from 'elysia'
import type { Config } from '../config'
import { clientIp, envelope, errors, ok } from '../lib/http'
import type { AuthGuard } from './guard'
import { AuthResult, Credentials, ForgotBody, Message, PublicUser, RefreshBody, ResetBody, TokenPair } from './model'
import type { AuthService } from './service'
import { t } from 'elysia'

export function authRoutes(config: Config, auth: AuthService, guard: AuthGuard) {
  return new Elysia({ name: 'auth', prefix: '/api/auth', detail: { tags: ['Аккаунт'] } })
    .use(guard)
    .derive(({ request, server }) => ({ ip: clientIp(request, server, config.trustProxy) }))
    .post(
      '/register',
      async ({ body, ip, signAccess, status }) => {
        const { user, refreshToken } = await auth.register(body, ip)
        return status(201, ok({ user, refreshToken, accessToken: await signAccess(user.id) }))
      },
      {
        body: Credentials,
        response: { 201: envelope(AuthResult), ...errors(400, 409, 429) },
        detail: { summary: 'Регистрация: создаёт аккаунт, начисляет приветственный бонус и открывает сессию' },
      },
    )
    .post(
      '/login',
      async ({ body, ip, signAccess }) => {
        const { user, refreshToken } = await auth.login(body, ip)
        return ok({ user, refreshToken, accessToken: await signAccess(user.id) })
      },
      {
        body: Credentials,
        response: { 200: envelope(AuthResult), ...errors(400, 401, 429) },
        detail: { summary: 'Вход по e-mail и паролю' },
      },
    )
    .post(
      '/refresh',
      async ({ body, signAccess }) => {
        const { userId, refreshToken } = auth.refresh(body.refreshToken)
        return ok({ accessToken: await signAccess(userId), refreshToken })
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
      ({ body }) => {
        auth.logout(body.refreshToken)
        return ok({ ok: true })
      },
      {
        body: RefreshBody,
        response: { 200: envelope(t.Object({ ok: t.Boolean() })), ...errors(400) },
        detail: { summary: 'Выход: отзывает refresh-токен и его сессию' },
      },
    )
    .post('/forgot-password', ({ body, ip }) => ok(auth.forgotPassword(body, ip)), {
      body: ForgotBody,
      response: { 200: envelope(Message), ...errors(400, 429) },
      detail: { summary: 'Запрос письма для сброса пароля (ответ не зависит от наличия аккаунта)' },
    })
    .post('/reset-password', async ({ body }) => ok(await auth.resetPassword(body)), {
      body: ResetBody,
      response: { 200: envelope(Message), ...errors(400) },
      detail: { summary: 'Установка нового пароля по токену из письма' },
    })
    .get('/profile', ({ user }) => ok({ user }), {
      auth: true,
      response: { 200: envelope(t.Object({ user: PublicUser })), ...errors(401) },
      detail: { summary: 'Профиль текущего пользователя', security: [{ bearerAuth: [] }] },
    })
}
