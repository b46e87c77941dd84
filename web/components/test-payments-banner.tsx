/**
 * ALLOW_TEST_PAYMENTS: the server takes "payments" on its built-in test page. Every page — the
 * site, the sign-in screens and the app — says so, so nobody mistakes a test top-up for real money.
 * The server writes the flag into every page's HTML (src/spa/index.ts), so no request is needed.
 */
export const testPaymentsMode = typeof document !== 'undefined' && document.getElementById('test-payments-mode') !== null

export function TestPaymentsBanner() {
  if (!testPaymentsMode) return null
  return (
    <div role="status" data-testid="test-payments-banner" className="border-b border-rose-200 bg-rose-50 px-4 py-2 text-center text-sm text-rose-900">
      <span className="mr-2 inline-block rounded bg-rose-200 px-1.5 py-0.5 text-xs font-semibold uppercase tracking-wide">тест</span>
      Тестовый режим оплаты: деньги не списываются, пополнения ненастоящие.
    </div>
  )
}
