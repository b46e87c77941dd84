import { t } from 'elysia'
import { PROMO_RULES, REFERRAL_RULES } from '../content/promo'

// Bodies take any JSON value per field, so a wrong type gets the field's Russian message from the
// service (promo/service.ts) instead of a schema dump.
export const CreatePromoBody = t.Object({
  code: t.Any({ description: `Код: ${PROMO_RULES.codeRule}; хранится в верхнем регистре`, examples: ['WELCOME500'] }),
  amountRub: t.Any({ description: `Сколько рублей получает аккаунт, от ${PROMO_RULES.minAmountRub} до ${PROMO_RULES.maxAmountRub}, до копейки`, examples: [500] }),
  maxUses: t.Any({ description: `Сколько аккаунтов могут активировать код, от 1 до ${PROMO_RULES.maxUses}`, examples: [100] }),
  expiresAt: t.Any({ description: 'Действует до (ISO 8601, например 2026-12-31T23:59:59+03:00); null — бессрочно', examples: [null] }),
})

export const PROMO_STATES = ['active', 'expired', 'disabled', 'used_up'] as const

export const PromoCode = t.Object(
  {
    id: t.String(),
    code: t.String(),
    amountRub: t.Number({ description: 'Рубли на баланс за одну активацию' }),
    maxUses: t.Integer(),
    uses: t.Integer({ description: 'Активаций на сейчас' }),
    expiresAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    disabledAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    createdAt: t.String({ format: 'date-time' }),
    state: t.UnionEnum([...PROMO_STATES], { description: 'active — действует; expired — истёк срок; disabled — отключён; used_up — активации закончились' }),
  },
  { title: 'PromoCode' },
)

export const PromoParams = t.Object({ id: t.String({ maxLength: 64 }) })

export const RedeemBody = t.Object({ code: t.Any({ description: 'Промокод (регистр не важен)', examples: ['WELCOME500'] }) })

export const Redeemed = t.Object(
  {
    code: t.String(),
    amountRub: t.Number({ description: 'Зачислено, рубли' }),
    balance: t.Number({ description: 'Баланс аккаунта (личного или команды) после зачисления, рубли' }),
    message: t.String(),
  },
  { title: 'PromoRedeemed' },
)

export const Referral = t.Object(
  {
    enabled: t.Boolean({ description: 'Программа действует (REFERRAL_BONUS_RUB больше нуля)' }),
    bonusRub: t.Number({ description: 'Бонус каждому из двух аккаунтов, рубли' }),
    minPaymentRub: t.Number({ description: `Первое пополнение приглашённого от этой суммы (${REFERRAL_RULES.minPaymentRub} ₽) приносит бонус` }),
    monthlyLimit: t.Integer({ description: 'Не больше стольких бонусов в календарный месяц (по Москве) одному пригласившему' }),
    code: t.Union([t.String(), t.Null()], { description: 'Код приглашения; null, пока программа не действует и код не создан' }),
    link: t.Union([t.String(), t.Null()], { description: 'Ссылка-приглашение /r/{code} на адресе сервиса' }),
    invited: t.Integer({ description: 'Зарегистрировались по ссылке' }),
    rewarded: t.Integer({ description: 'Из них пополнили баланс и принесли бонус' }),
    earnedRub: t.Number({ description: 'Получено реферальных бонусов на личный баланс, рубли' }),
  },
  { title: 'Referral' },
)
