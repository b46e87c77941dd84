// /app/billing: the balance and a card top-up, a team's invoices (the invoices feature), the ledger,
// card payments, the balance alert and refunds. Composed here because it shows two features.
import { useLocation, useSearch } from 'wouter'
import { PageHeading } from '../../components/page-heading'
import { TransactionList } from '../../components/transaction-list'
import { BalanceAlert } from '../../features/billing/balance-alert'
import { BalanceCard } from '../../features/billing/balance-card'
import { PaymentList } from '../../features/billing/payment-list'
import { PaymentOutcome } from '../../features/billing/payment-outcome'
import { PromoForm } from '../../features/billing/promo-form'
import { RefundSection } from '../../features/billing/refund-section'
import { AutoTopupForm, SavedMethods } from '../../features/billing/saved-payments'
import { TopUpForm } from '../../features/billing/top-up-form'
import { InvoiceSection } from '../../features/invoices/invoice-section'
import { useAccount } from '../../lib/account'
import { useDocumentTitle } from '../../lib/use-document-title'

export function BillingPage() {
  useDocumentTitle('Баланс')
  const search = useSearch()
  const [, navigate] = useLocation()
  const paymentId = new URLSearchParams(search).get('payment')
  const account = useAccount()

  return (
    <>
      <PageHeading
        title={account.team ? `Баланс команды «${account.team.name}»` : 'Баланс'}
        description={
          account.team
            ? 'Пополнения картой и через СБП зачисляются на баланс команды; автопополнение, история операций команды и её платежи.'
            : 'Пополнение картой или через СБП, автопополнение, история операций и платежей.'
        }
      />
      {paymentId && <PaymentOutcome key={paymentId} paymentId={paymentId} onClose={() => navigate('/app/billing', { replace: true })} />}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
        <BalanceCard />
        <div className="lg:col-span-2">
          <TopUpForm />
        </div>
      </div>
      {account.can('topup') && <PromoForm className="mt-6" />}
      {account.can('topup') && (
        <div className="mt-6 grid grid-cols-1 items-start gap-6 lg:grid-cols-5">
          <AutoTopupForm className="lg:col-span-3" />
          <SavedMethods className="lg:col-span-2" />
        </div>
      )}
      <InvoiceSection className="mt-6" />
      <div className="mt-6 grid grid-cols-1 items-start gap-6 lg:grid-cols-5">
        <div className="lg:col-span-3">
          <TransactionList />
        </div>
        <div className="space-y-6 lg:col-span-2">
          <PaymentList />
          {account.can('team.manage') && <BalanceAlert />}
          <RefundSection />
        </div>
      </div>
    </>
  )
}
