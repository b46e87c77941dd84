import { PlaceholderPage } from '../../components/placeholder-page'

export function UsagePage() {
  return (
    <PlaceholderPage title="Статистика" description="Расходы и запросы к моделям.">
      Здесь появится статистика использования за 7, 30, 90 дней и за всё время, а также последние запросы.
    </PlaceholderPage>
  )
}
