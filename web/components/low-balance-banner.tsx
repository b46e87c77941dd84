import { Link, useLocation } from 'wouter'
import { formatRubles } from '../../src/content/format'
import { useBalance } from '../lib/queries'
import { useBanners, useDismissed } from '../stores/banners'
import { BannerLine } from './banner-line'
import { AlertCircleIcon } from './icons'

/**
 * The balance is under the cost of about 100 typical requests and the warning was not hidden. Not
 * on the admin pages: there the admin manages others' money, their own balance is beside the point.
 */
export function useLowBalanceBannerShown(): boolean {
  const { data } = useBalance()
  const [location] = useLocation()
  const dismissed = useDismissed('lowBalance')
  return !!data?.isLow && !dismissed && !(location === '/app/admin' || location.startsWith('/app/admin/'))
}

/** A warning, not a wall: one line above every signed-in page; hidden until the next page load. */
export function LowBalanceBanner() {
  const shown = useLowBalanceBannerShown()
  const { data } = useBalance()
  const [location] = useLocation()
  const dismiss = useBanners((s) => s.dismiss)
  if (!shown || !data) return null
  const onBilling = location === '/app/billing'
  const text = `Баланс заканчивается — осталось ${formatRubles(data.balance)}. Когда он закончится, запросы к моделям перестанут выполняться.`
  return (
    <BannerLine
      tone="amber"
      testId="low-balance-banner"
      title={text}
      lead={<AlertCircleIcon size={16} className="shrink-0 text-amber-600" />}
      action={
        !onBilling && (
          <Link href="/app/billing" className="shrink-0 font-semibold whitespace-nowrap text-amber-900 underline underline-offset-2 hover:text-amber-700">
            Пополнить баланс
          </Link>
        )
      }
      dismissLabel="Скрыть предупреждение"
      onDismiss={() => dismiss('lowBalance')}
    >
      {/* a phone has room for the figure and the link only */}
      <span className="max-sm:hidden">Баланс заканчивается — осталось </span>
      <span className="sm:hidden">Баланс: </span>
      <span className="font-semibold whitespace-nowrap tabular-nums">{formatRubles(data.balance)}</span>
      <span className="max-sm:hidden">. Когда он закончится, запросы к моделям перестанут выполняться</span>.
    </BannerLine>
  )
}
