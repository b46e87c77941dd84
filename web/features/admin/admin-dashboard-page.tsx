import { PlaceholderPage } from '../../components/placeholder-page'

export function AdminDashboardPage() {
  return (
    <PlaceholderPage title="Админ-панель" description="Статистика платформы.">
      Здесь появятся пользователи, финансы, использование и состояние блога.
    </PlaceholderPage>
  )
}
