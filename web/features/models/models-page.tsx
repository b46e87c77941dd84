import { PlaceholderPage } from '../../components/placeholder-page'

export function ModelsPage() {
  return (
    <PlaceholderPage title="Модели" description="Каталог языковых моделей и моделей для изображений.">
      Здесь появится каталог с поиском, фильтром по провайдерам и ценами в рублях.
    </PlaceholderPage>
  )
}
