import { Elysia } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import { envelope, errors, ok } from '../lib/http'
import {
  AdminStats,
  AdminUserDetail,
  BalanceBody,
  BalanceResult,
  Deleted,
  TeamBalanceResult,
  TeamParams,
  TeamsPage,
  TeamsQuery,
  UncoveredPage,
  UncoveredQuery,
  UserParams,
  UsersPage,
  UsersQuery,
} from './model'
import type { AdminService } from './service'

/** Every route here is behind the server-side admin check (403 for others, 401 without a token). */
export function adminRoutes(admin: AdminService, guard: AuthGuard) {
  return new Elysia({ name: 'admin', prefix: '/api/admin', detail: { tags: ['Администрирование'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .get('/stats', async () => ok(await admin.stats()), {
      admin: true,
      response: { 200: envelope(AdminStats), ...errors(401, 403) },
      detail: { summary: 'Статистика платформы: ключ провайдера, пользователи, финансы, использование, блог' },
    })
    .get('/uncovered', async ({ query }) => ({ success: true as const, ...(await admin.uncovered(query.limit ?? 50)) }), {
      admin: true,
      query: UncoveredQuery,
      response: { 200: UncoveredPage, ...errors(400, 401, 403) },
      detail: { summary: 'Не покрыто клиентами: запросы, стоимость которых превысила баланс клиента (должно быть пусто)' },
    })
    .get('/users', async ({ query }) => ({ success: true as const, ...(await admin.users(query.search, query.limit ?? 100)) }), {
      admin: true,
      query: UsersQuery,
      response: { 200: UsersPage, ...errors(400, 401, 403) },
      detail: { summary: 'Пользователи (поиск по e-mail), новые сверху, с числом ключей и запросов' },
    })
    .get('/users/:id', async ({ params }) => ok(await admin.userDetail(params.id)), {
      admin: true,
      params: UserParams,
      response: { 200: envelope(AdminUserDetail), ...errors(401, 403, 404) },
      detail: { summary: 'Пользователь: подтверждение e-mail, последняя активность, последние движения по балансу, ключи и запросы' },
    })
    .delete('/users/:id', async ({ user, params }) => ok(await admin.deleteUser(user, params.id)), {
      admin: true,
      params: UserParams,
      response: { 200: envelope(Deleted), ...errors(400, 401, 403, 404) },
      detail: {
        summary: 'Удаление пользователя: ключи и сессии отзываются сразу, e-mail обезличивается, проводки и журнал запросов сохраняются',
      },
    })
    .post('/users/:id/balance', async ({ user, params, body }) => ok(await admin.adjustBalance(user, params.id, body)), {
      admin: true,
      params: UserParams,
      body: BalanceBody,
      response: { 200: envelope(BalanceResult), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Корректировка баланса (+ пополнение, − списание): проводка с id администратора; ниже нуля списать нельзя' },
    })
    .get('/teams', async ({ query }) => ({ success: true as const, ...(await admin.teams(query.search, query.limit ?? 100)) }), {
      admin: true,
      query: TeamsQuery,
      response: { 200: TeamsPage, ...errors(400, 401, 403) },
      detail: { summary: 'Команды (поиск по названию), новые сверху: баланс, участники, расходы' },
    })
    .post('/teams/:id/balance', async ({ user, params, body }) => ok(await admin.adjustTeamBalance(user, params.id, body)), {
      admin: true,
      params: TeamParams,
      body: BalanceBody,
      response: { 200: envelope(TeamBalanceResult), ...errors(400, 401, 403, 404) },
      detail: { summary: 'Корректировка баланса команды (+/−): проводка команды с id администратора и запись в журнале команды' },
    })
}
