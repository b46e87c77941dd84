import { PlaceholderPage } from '../../components/placeholder-page'

export function PlaygroundPage() {
  return (
    <PlaceholderPage title="Playground" description="Чат с моделями прямо в браузере.">
      Здесь появятся чат с выбором модели, настройки температуры и длины ответа, вложения и история чатов.
    </PlaceholderPage>
  )
}
