import { PlaceholderPage } from '../../components/placeholder-page'

export function AdminBlogPage() {
  return (
    <PlaceholderPage title="Блог" description="Автоматическая публикация статей о моделях.">
      Здесь появятся расписание автопостинга и список статей.
    </PlaceholderPage>
  )
}
