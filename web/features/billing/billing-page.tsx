import { PlaceholderPage } from '../../components/placeholder-page'

export function BillingPage() {
  return (
    <PlaceholderPage title="Баланс" description="Пополнение баланса и история операций.">
      Здесь появятся пополнение баланса картой и полная история операций.
    </PlaceholderPage>
  )
}
