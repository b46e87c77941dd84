// The admin's promo codes: /api/admin/promo-codes (every call checked on the server too).
import useSWR from 'swr'
import type { PromoCode, PromoCodeState } from '../../../src/wire'
import { api } from '../../lib/api'

// The wire types, declared by the route schemas (src/promo/model.ts).
export type { PromoCode, PromoCodeState }

export const PROMO_CODES_KEY = '/api/admin/promo-codes'

export const PROMO_STATE_LABELS: Record<PromoCodeState, string> = {
  active: 'Действует',
  expired: 'Истёк',
  disabled: 'Отключён',
  used_up: 'Активации закончились',
}

export const usePromoCodes = () => useSWR<PromoCode[]>(PROMO_CODES_KEY)

export type NewPromoCode = { code: string; amountRub: number; maxUses: number; expiresAt: string | null }

export const promoApi = {
  create: (body: NewPromoCode) => api.post<PromoCode>(PROMO_CODES_KEY, body, { fallback: 'Не удалось создать промокод' }),
  disable: (id: string) => api.post<PromoCode>(`${PROMO_CODES_KEY}/${encodeURIComponent(id)}/disable`, undefined, { fallback: 'Не удалось отключить промокод' }),
}

/** A date field's 'YYYY-MM-DD' → the end of that day in Moscow, as the server takes it (ISO 8601). */
export const endOfMoscowDay = (day: string) => `${day}T23:59:59.999+03:00`
