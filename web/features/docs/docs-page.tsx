import { PlaceholderPage } from '../../components/placeholder-page'

export function DocsPage() {
  return (
    <PlaceholderPage title="Документация" description="Как подключиться к API и начать работу.">
      Здесь появятся разделы о начале работы, API ключах, оплате, использовании API, генерации изображений и моделях.
    </PlaceholderPage>
  )
}
