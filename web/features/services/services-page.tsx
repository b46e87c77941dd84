import { PublicPlaceholderPage } from '../../components/public-placeholder-page'

export function ServicesPage() {
  return <PublicPlaceholderPage title="Услуги" lead="Что входит в доступ к AI-моделям через AI Gateway и сколько это стоит." />
}
