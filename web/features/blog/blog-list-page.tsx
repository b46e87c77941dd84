import { PublicPlaceholderPage } from '../../components/public-placeholder-page'

export function BlogListPage() {
  return <PublicPlaceholderPage title="Блог" lead="Статьи о новых AI-моделях: возможности, сценарии применения и цены." />
}
