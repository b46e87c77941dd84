import { PublicPlaceholderPage } from '../../components/public-placeholder-page'

export function PrivacyPolicyPage() {
  return <PublicPlaceholderPage title="Политика конфиденциальности" lead="Какие данные мы собираем, зачем и как их защищаем." />
}
