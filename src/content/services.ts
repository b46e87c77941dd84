// The service catalogue as data: the page renders it, the server sends the same text to crawlers.

import type { RichDocument } from './rich-text'
import { type PublicSeller, sellerFooter } from './seller'
import { groupRub, PAYMENT_METHODS, PRICING, PROVIDER, SUPPORT, TOP_UP, WELCOME_BONUS_RUB } from './terms'

const rub = (n: number) => `${groupRub(n)} ₽`

/** 'Самозанятый (ИНН предоставляется по запросу)', 'ООО «Ромашка» (ИНН …, КПП …)'. */
function providerLine(seller: PublicSeller | null): string {
  const { who, ids } = sellerFooter(seller)
  return `${who.join(', ')} (${ids})`
}

/** The services page, its «Исполнитель» the configured seller (null: the generic text). */
export const servicesDocument = (seller: PublicSeller | null): RichDocument => ({
  title: 'Услуги',
  lead: 'Доступ к AI-моделям для текста и изображений через единый API и веб-интерфейс, с оплатой в рублях по факту использования.',
  sections: [
    {
      id: 'api',
      title: 'Доступ к AI-моделям по API',
      blocks: [
        {
          type: 'p',
          text: 'OpenAI-совместимый REST API к сотням моделей — GPT, Claude, Gemini, Llama, DeepSeek, Mistral и другим. Работает с официальными SDK OpenAI для JavaScript и Python, поддерживает потоковые ответы.',
        },
        { type: 'ul', items: ['API ключи с месячными лимитами расходов', 'цена каждой модели в рублях в каталоге', 'списание фактической стоимости запроса'] },
      ],
    },
    {
      id: 'playground',
      title: 'Playground в браузере',
      blocks: [
        {
          type: 'p',
          text: 'Чат с любой моделью без программирования: вложения (изображения, PDF, текстовые файлы), настройки температуры и длины ответа, сохранённая история чатов, цена запроса до отправки.',
        },
      ],
    },
    {
      id: 'images',
      title: 'Генерация изображений',
      blocks: [
        {
          type: 'p',
          text: 'Создание изображений по текстовому описанию моделями генерации — в Playground и через `POST /v1/images`. Готовые изображения можно скачать.',
        },
      ],
    },
    {
      id: 'analytics',
      title: 'Статистика и контроль расходов',
      blocks: [
        {
          type: 'p',
          text: 'История запросов, графики расходов по дням, самые используемые модели, выгрузка в CSV, история операций по балансу и уведомления о низком балансе.',
        },
      ],
    },
    {
      id: 'pricing',
      title: 'Стоимость',
      blocks: [
        {
          type: 'ul',
          items: [
            `Оплата только за использование: стоимость запроса у провайдера в долларах США × курс ЦБ РФ × наценка ${PRICING.markupPercent}%.`,
            `Пополнение баланса — от ${rub(TOP_UP.minRub)} до ${rub(TOP_UP.maxRub)}: ${PAYMENT_METHODS.join(', ')}.`,
            `После регистрации и подтверждения адреса электронной почты — ${rub(WELCOME_BONUS_RUB)} на баланс, чтобы попробовать модели.`,
            'Без абонентской платы и подписки. Неиспользованный остаток можно вернуть по [Политике возврата](/refund-policy).',
          ],
        },
      ],
    },
    {
      id: 'provider',
      title: 'Исполнитель',
      blocks: [
        {
          type: 'p',
          text: `${providerLine(seller)}. Поддержка ${SUPPORT.hours}: [${PROVIDER.email}](mailto:${PROVIDER.email}), ${PROVIDER.messenger.name} [${PROVIDER.messenger.handle}](${PROVIDER.messenger.url}). ${PROVIDER.upstreamNote} Условия — в [Публичной оферте](/public-offer).`,
        },
      ],
    },
  ],
})

export const SERVICES_DOCUMENT = servicesDocument(null)
