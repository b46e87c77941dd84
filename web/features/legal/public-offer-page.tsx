import { PublicPlaceholderPage } from '../../components/public-placeholder-page'

export function PublicOfferPage() {
  return <PublicPlaceholderPage title="Публичная оферта" lead="Договор на оказание услуг доступа к AI-моделям." />
}
