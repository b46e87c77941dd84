import { PlaceholderPage } from '../../components/placeholder-page'

export function ApiKeysPage() {
  return (
    <PlaceholderPage title="API ключи" description="Ключи для доступа к API из ваших приложений.">
      Здесь можно будет создавать, просматривать и удалять API ключи.
    </PlaceholderPage>
  )
}
