import { PublicPlaceholderPage } from '../../components/public-placeholder-page'

export function BlogPostPage(_props: { slug: string }) {
  return <PublicPlaceholderPage title="Статья блога" backHref="/blog" backLabel="Все статьи" />
}
