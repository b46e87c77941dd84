import { PublicPlaceholderPage } from '../../components/public-placeholder-page'

export function TermsOfServicePage() {
  return <PublicPlaceholderPage title="Пользовательское соглашение" lead="Условия использования сервиса AI Gateway." />
}
