import type { Health } from '../../src/wire'
import { usePublicJson } from '../lib/public-json'
import { useBanners, useDismissed } from '../stores/banners'
import { useSession } from '../stores/session'
import { BannerLine } from './banner-line'

/** The one line every visitor and customer reads; kept short so a phone shows it in one line. */
export const DEMO_NOTICE = 'Демо-режим: ответы моделей имитируются'
const ADMIN_HINT = 'Для настоящих моделей задайте OPENROUTER_API_KEY на сервере.'

/** Replies come from the built-in demo upstream and the banner was not closed in this browser. */
export function useDemoBannerShown(): boolean {
  // not SWR's useHealth: the banner is part of the landing's light entry (web/landing.tsx)
  const { data } = usePublicJson<Health>('/api/health')
  const dismissed = useDismissed('demo')
  return data?.upstream === 'demo' && !dismissed
}

/**
 * Says plainly when replies come from the built-in demo upstream rather than real models. Customers
 * and visitors get one dismissible line (closed for good in this browser); how to switch the demo
 * off (an operator setting) is only for admins, who can act on it.
 */
export function DemoBanner() {
  const shown = useDemoBannerShown()
  const isAdmin = useSession((s) => s.isAuthenticated && s.user?.role === 'admin')
  const dismiss = useBanners((s) => s.dismiss)
  if (!shown) return null
  return (
    <BannerLine
      tone="amber"
      testId="demo-banner"
      title={`${DEMO_NOTICE}, настоящие модели не вызываются.${isAdmin ? ` ${ADMIN_HINT}` : ''}`}
      lead={
        <span className="hidden shrink-0 rounded bg-amber-200 px-1.5 py-0.5 text-xs font-semibold tracking-wide uppercase sm:inline-block" aria-hidden="true">
          демо
        </span>
      }
      dismissLabel="Скрыть уведомление о демо-режиме"
      onDismiss={() => dismiss('demo')}
    >
      <span data-testid="demo-banner-notice" className="sm:text-center">
        {/* the narrowest phones drop one word so the line ends whole, not in an ellipsis */}
        Демо-режим: ответы <span className="max-[400px]:hidden">моделей </span>имитируются
        <span className="max-sm:hidden">, настоящие модели не вызываются</span>.
      </span>
      {isAdmin && (
        // on a phone only in the tooltip: the line stays one line
        <span data-testid="demo-banner-admin" className="ml-1 text-amber-800 max-sm:sr-only">
          {ADMIN_HINT}
        </span>
      )}
    </BannerLine>
  )
}
