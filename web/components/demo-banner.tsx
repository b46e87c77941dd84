import { useState } from 'react'
import { useHealth } from '../lib/queries'
import { useSession } from '../stores/session'
import { CloseIcon } from './icons'

/** Set once the banner is closed: it then stays hidden on every page of this browser. */
export const DEMO_BANNER_DISMISSED_KEY = 'demo-banner-dismissed'

/** The one line every visitor and customer reads; kept short so a phone shows it in one line. */
export const DEMO_NOTICE = 'Демо-режим: ответы моделей имитируются'

function readDismissed(): boolean {
  try {
    return localStorage.getItem(DEMO_BANNER_DISMISSED_KEY) === '1'
  } catch {
    return false // storage unavailable (private mode): the banner simply shows
  }
}

/**
 * Says plainly when replies come from the built-in demo upstream rather than real models. Customers
 * and visitors get one dismissible line; how to switch the demo off (an operator setting) is only
 * for admins, who can act on it.
 */
export function DemoBanner() {
  const { data } = useHealth()
  const isAdmin = useSession((s) => s.isAuthenticated && s.user?.role === 'admin')
  const [dismissed, setDismissed] = useState(readDismissed)
  if (data?.upstream !== 'demo' || dismissed) return null

  function dismiss() {
    setDismissed(true)
    try {
      localStorage.setItem(DEMO_BANNER_DISMISSED_KEY, '1')
    } catch {
      /* not remembered: hidden until the next page load */
    }
  }

  return (
    <div role="status" data-testid="demo-banner" className="border-b border-amber-200 bg-amber-50 text-sm text-amber-900">
      <div className="mx-auto flex max-w-6xl items-center gap-2 py-1.5 pr-2 pl-4 max-sm:pl-3 max-sm:text-[13px]">
        <span className="hidden shrink-0 rounded bg-amber-200 px-1.5 py-0.5 text-xs font-semibold tracking-wide uppercase sm:inline-block" aria-hidden="true">
          демо
        </span>
        <p className="min-w-0 flex-1 sm:text-center">
          {/* one line, cut with an ellipsis rather than wrapped on the narrowest phones */}
          <span data-testid="demo-banner-notice" className="block truncate" title={`${DEMO_NOTICE}, настоящие модели не вызываются.`}>
            {/* the narrowest phones drop one word so the line ends whole, not in an ellipsis */}
            Демо-режим: ответы <span className="max-[400px]:hidden">моделей </span>имитируются
            <span className="max-sm:hidden">, настоящие модели не вызываются</span>.
          </span>
          {isAdmin && (
            <span data-testid="demo-banner-admin" className="block text-xs text-amber-800">
              Для настоящих моделей задайте OPENROUTER_API_KEY на сервере.
            </span>
          )}
        </p>
        <button
          type="button"
          onClick={dismiss}
          aria-label="Скрыть уведомление о демо-режиме"
          className="shrink-0 rounded-md p-1 text-amber-700 transition-colors hover:bg-amber-100 hover:text-amber-900"
        >
          <CloseIcon size={16} />
        </button>
      </div>
    </div>
  )
}
