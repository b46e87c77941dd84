import { useBanners, useDismissed } from '../stores/banners'
import { BannerLine } from './banner-line'

/**
 * ALLOW_TEST_PAYMENTS: the server takes "payments" on its built-in test page. Every page — the
 * site, the sign-in screens and the app — says so, so nobody mistakes a test top-up for real money.
 * The server writes the flag into every page's HTML (src/spa/index.ts), so no request is needed.
 */
export const testPaymentsMode = typeof document !== 'undefined' && document.getElementById('test-payments-mode') !== null

export const TEST_PAYMENTS_NOTICE = 'Тестовый режим оплаты: деньги не списываются, пополнения ненастоящие.'

/** Test payments are on and the notice was not closed in this tab. */
export function useTestPaymentsBannerShown(): boolean {
  const dismissed = useDismissed('testPayments')
  return testPaymentsMode && !dismissed
}

export function TestPaymentsBanner() {
  const shown = useTestPaymentsBannerShown()
  const dismiss = useBanners((s) => s.dismiss)
  if (!shown) return null
  return (
    <BannerLine
      tone="rose"
      testId="test-payments-banner"
      title={TEST_PAYMENTS_NOTICE}
      lead={<span className="inline-block shrink-0 rounded bg-rose-200 px-1.5 py-0.5 text-xs font-semibold tracking-wide uppercase">тест</span>}
      dismissLabel="Скрыть уведомление о тестовом режиме оплаты"
      onDismiss={() => dismiss('testPayments')}
    >
      {TEST_PAYMENTS_NOTICE}
    </BannerLine>
  )
}
