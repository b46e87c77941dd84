import { PlaceholderPage } from '../../components/placeholder-page'

export function AdminUsersPage() {
  return (
    <PlaceholderPage title="Пользователи" description="Управление пользователями и балансами.">
      Здесь появятся поиск пользователей, изменение баланса и удаление аккаунтов.
    </PlaceholderPage>
  )
}
