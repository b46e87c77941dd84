import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import { envelope, errors, ok } from '../lib/http'
import { CreatePromoBody, PromoCode, PromoParams, RedeemBody, Redeemed, Referral } from './model'
import type { PromoService } from './service'

/** The admin's promo codes: create, list, disable (every route behind the server-side admin check). */
function promoAdminRoutes(promo: PromoService, guard: AuthGuard) {
  return new Elysia({ name: 'promo-admin', prefix: '/api/admin/promo-codes', detail: { tags: ['Администрирование'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .post('', async ({ user, body, status }) => status(201, ok(await promo.create(user, body))), {
      admin: true,
      body: CreatePromoBody,
      response: { 201: envelope(PromoCode), ...errors(400, 401, 403, 409) },
      detail: {
        summary: 'Новый промокод: код, сумма в рублях, число активаций и срок действия',
        description:
          'Код — 3–32 символа (латинские буквы, цифры, «-», «_»), хранится в верхнем регистре, уникален (409 при повторе). `expiresAt` — ISO 8601 или null (бессрочно). Каждый аккаунт (личный или команды) активирует код один раз.',
      },
    })
    .get('', async () => ok(await promo.list()), {
      admin: true,
      response: { 200: envelope(t.Array(PromoCode)), ...errors(401, 403) },
      detail: { summary: 'Промокоды, новые сверху, с числом активаций и состоянием' },
    })
    .post('/:id/disable', async ({ user, params }) => ok(await promo.disable(user, params.id)), {
      admin: true,
      params: PromoParams,
      response: { 200: envelope(PromoCode), ...errors(401, 403, 404) },
      detail: {
        summary: 'Отключить промокод',
        description:
          'Отключённый код больше не активируется; уже зачисленные суммы остаются. Повторный вызов ничего не меняет и отвечает тем же кодом. Включить код снова нельзя — создайте новый.',
      },
    })
}

/** The customer's side (redeeming a code, the referral link, and /r/{code} itself) and the admin's. */
export function promoRoutes(promo: PromoService, guard: AuthGuard) {
  return new Elysia({ name: 'promo', detail: { security: [{ bearerAuth: [] }] } })
    .use(guard)
    .use(promoAdminRoutes(promo, guard))
    .post('/api/billing/promo', async ({ acting, user, body }) => ok(await promo.redeem(acting, user, body.code)), {
      account: 'topup',
      body: RedeemBody,
      response: { 200: envelope(Redeemed), ...errors(400, 401, 403, 404, 409, 429) },
      detail: {
        tags: ['Баланс'],
        summary: 'Активировать промокод: сумма зачисляется на баланс (личный или команды из X-Team-Id)',
        description:
          'Один раз на аккаунт; нужен подтверждённый e-mail (403). 404 — кода нет; 400 — истёк или отключён; 409 — активации закончились или код уже активирован этим аккаунтом; 429 — больше 20 попыток в час. Деньги по промокоду не возвращаются.',
      },
    })
    .get('/api/billing/referral', async ({ user }) => ok(await promo.referral(user.id)), {
      auth: true,
      response: { 200: envelope(Referral), ...errors(401) },
      detail: {
        tags: ['Баланс'],
        summary: 'Реферальная программа: ссылка-приглашение, сколько человек пришло и сколько бонусов получено',
        description:
          'Ссылка личная (заголовок X-Team-Id не учитывается). Когда приглашённый впервые пополнит баланс по-настоящему (картой, через СБП или по счёту) на 500 ₽ или больше, оба получают бонус REFERRAL_BONUS_RUB; не больше 10 бонусов в месяц одному пригласившему. enabled: false — программа сейчас не действует.',
      },
    })
    .get(
      '/r/:code',
      async ({ params }) => {
        const cookie = await promo.invitationCookie(params.code)
        return new Response(null, {
          status: 302,
          headers: { location: '/register', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', ...(cookie ? { 'set-cookie': cookie } : {}) },
        })
      },
      { detail: { hide: true } },
    )
}
