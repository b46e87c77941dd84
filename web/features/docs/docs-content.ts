// The documentation as data, with this server's address filled in: the page renders it (the
// browser's origin), the server sends the same text to crawlers (PUBLIC_URL).
import { groupRub, PRICING, TOP_UP, WELCOME_BONUS_RUB } from '../../../src/lib/terms'
import type { RichDocument } from '../../lib/rich-text'

const rub = (n: number) => `${groupRub(n)} ₽`

export function docsDocument(origin: string): RichDocument {
  const api = `${origin}/v1`
  const curlChat = `curl ${api}/chat/completions \\
  -H "Authorization: Bearer $AI_GATEWAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{
    "model": "openai/gpt-4o-mini",
    "messages": [{"role": "user", "content": "Привет! Расскажи о себе в двух предложениях."}],
    "temperature": 0.7,
    "max_tokens": 500
  }'`

  const jsChat = `import OpenAI from 'openai'

const client = new OpenAI({
  baseURL: '${api}',
  apiKey: process.env.AI_GATEWAY_API_KEY,
})

const completion = await client.chat.completions.create({
  model: 'openai/gpt-4o-mini',
  messages: [{ role: 'user', content: 'Привет! Расскажи о себе в двух предложениях.' }],
})

console.log(completion.choices[0].message.content)
console.log('Стоимость, ₽:', completion.usage?.cost_rub)`

  const pyChat = `import os
from openai import OpenAI

client = OpenAI(
    base_url="${api}",
    api_key=os.environ["AI_GATEWAY_API_KEY"],
)

completion = client.chat.completions.create(
    model="openai/gpt-4o-mini",
    messages=[{"role": "user", "content": "Привет! Расскажи о себе в двух предложениях."}],
)

print(completion.choices[0].message.content)`

  const curlStream = `curl -N ${api}/chat/completions \\
  -H "Authorization: Bearer $AI_GATEWAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "openai/gpt-4o-mini", "stream": true,
       "messages": [{"role": "user", "content": "Напиши хайку об осени"}]}'`

  const jsStream = `const stream = await client.chat.completions.create({
  model: 'openai/gpt-4o-mini',
  messages: [{ role: 'user', content: 'Напиши хайку об осени' }],
  stream: true,
  stream_options: { include_usage: true },
})

for await (const chunk of stream) {
  process.stdout.write(chunk.choices[0]?.delta?.content ?? '')
}`

  const pyStream = `stream = client.chat.completions.create(
    model="openai/gpt-4o-mini",
    messages=[{"role": "user", "content": "Напиши хайку об осени"}],
    stream=True,
)

for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        print(chunk.choices[0].delta.content, end="", flush=True)`

  const vision = `const completion = await client.chat.completions.create({
  model: 'openai/gpt-4o-mini',
  messages: [{
    role: 'user',
    content: [
      { type: 'text', text: 'Что изображено на картинке?' },
      { type: 'image_url', image_url: { url: 'https://example.com/photo.jpg' } },
    ],
  }],
})`

  const curlImage = `curl ${api}/images \\
  -H "Authorization: Bearer $AI_GATEWAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{
    "model": "google/gemini-2.5-flash-image",
    "prompt": "Акварельный маяк на скалистом берегу на закате",
    "size": "1024x1024",
    "quality": "standard",
    "n": 1,
    "response_format": "url"
  }'`

  const jsImage = `const result = await client.images.generate({
  model: 'google/gemini-2.5-flash-image',
  prompt: 'Акварельный маяк на скалистом берегу на закате',
  size: '1024x1024',
  n: 1,
  response_format: 'url',
})

console.log(result.data[0].url)`

  const pyImage = `result = client.images.generate(
    model="google/gemini-2.5-flash-image",
    prompt="Акварельный маяк на скалистом берегу на закате",
    size="1024x1024",
    n=1,
    response_format="b64_json",
)

import base64
with open("image.png", "wb") as f:
    f.write(base64.b64decode(result.data[0].b64_json))`

  const curlModels = `curl ${api}/models`

  const modelExample = `{
  "id": "openai/gpt-4o-mini",
  "object": "model",
  "name": "OpenAI: GPT-4o-mini",
  "context_length": 128000,
  "pricing": {
    "prompt": "0.0000176",
    "completion": "0.0000702",
    "image": "0.0254",
    "request": "0"
  },
  "capabilities": { "image": false, "vision": true }
}`

  const errorExample = `{
  "error": {
    "message": "Недостаточно средств: баланса хватает примерно на 120 токенов ответа, а запрошено max_tokens=4000. Уменьшите max_tokens или пополните баланс.",
    "type": "insufficient_balance",
    "code": "insufficient_balance",
    "param": null,
    "action": { "label": "Пополнить баланс", "url": "/app/billing" }
  }
}`

  return {
    title: 'Документация',
    lead: 'Как подключиться к API, оплачивать запросы и работать с текстовыми и графическими моделями.',
    sections: [
      {
        id: 'getting-started',
        title: 'Начало работы',
        blocks: [
          {
            type: 'p',
            text: 'AI Gateway — OpenAI-совместимый API к сотням AI-моделей с оплатой в рублях. Подойдёт любой клиент OpenAI: достаточно указать наш адрес и свой ключ.',
          },
          {
            type: 'ol',
            items: [
              `[Зарегистрируйтесь](/register) — на баланс сразу начисляется ${rub(WELCOME_BONUS_RUB)}.`,
              'Создайте API ключ на странице [API ключи](/app/api-keys) и сохраните его: ключ показывается один раз.',
              'При необходимости [пополните баланс](/app/billing) банковской картой.',
              'Отправьте первый запрос — примеры ниже.',
            ],
          },
          {
            type: 'table',
            head: ['Параметр', 'Значение'],
            rows: [
              ['Базовый адрес API', `\`${api}\``],
              ['Авторизация', '`Authorization: Bearer sk-gw-…`'],
              ['Формат', 'JSON, как у OpenAI; потоковые ответы — Server-Sent Events'],
              ['Каталог моделей', `\`GET ${api}/models\` или страница [Модели](/app/models)`],
            ],
          },
          { type: 'code', lang: 'bash', title: 'Первый запрос', code: curlChat },
        ],
      },
      {
        id: 'api-keys',
        title: 'API ключи',
        blocks: [
          {
            type: 'ul',
            items: [
              'Ключи создаются на странице [API ключи](/app/api-keys) и начинаются с `sk-gw-`. Полный ключ показывается только один раз — при создании.',
              'Передавайте ключ в заголовке `Authorization: Bearer <ключ>`. Не публикуйте его в коде фронтенда и репозиториях: храните в переменной окружения.',
              'Для каждого ключа можно задать месячный лимит расходов: запросы сверх лимита получают ошибку 402 `key_limit_exceeded`.',
              'Ключ можно отключить (запросы с ним получат 401 `api_key_disabled`), снова включить или удалить.',
            ],
          },
          { type: 'code', lang: 'bash', title: 'Переменная окружения', code: 'export AI_GATEWAY_API_KEY="sk-gw-…"' },
        ],
      },
      {
        id: 'billing',
        title: 'Оплата и баланс',
        blocks: [
          {
            type: 'p',
            text: `Баланс предоплаченный, в рублях. Стоимость запроса — фактическая стоимость у провайдера модели в долларах США × курс ЦБ РФ × наценка ${PRICING.markupPercent}%. Цены моделей в рублях видны в каталоге и в Playground до отправки.`,
          },
          {
            type: 'ul',
            items: [
              'Перед запросом резервируется его максимально возможная стоимость, после ответа списывается точная сумма, остаток резерва сразу освобождается.',
              'Неуспешные запросы не оплачиваются. Списанная сумма возвращается в ответе: поле `usage.cost_rub`.',
              'Если `max_tokens` не задан, длина ответа ограничивается суммой, на которую хватает баланса. Если заданный `max_tokens` не по карману — ответ 402 `insufficient_balance` с подсказкой, сколько токенов покрывает баланс.',
              `Пополнение — от ${rub(TOP_UP.minRub)} до ${rub(TOP_UP.maxRub)} на странице [Баланс](/app/billing); там же история операций.`,
              'Расходы по дням, моделям и ключам — на странице [Статистика](/app/usage), с выгрузкой в CSV.',
              'Неиспользованный остаток можно вернуть по [Политике возврата](/refund-policy).',
            ],
          },
        ],
      },
      {
        id: 'api-usage',
        title: 'Использование API',
        blocks: [
          {
            type: 'p',
            text: '`POST /v1/chat/completions` принимает те же поля, что и OpenAI: `model`, `messages`, `temperature` (0–2), `max_tokens`, `stream` и другие параметры — они передаются модели без изменений.',
          },
          { type: 'h3', text: 'curl' },
          { type: 'code', lang: 'bash', title: 'curl', code: curlChat },
          { type: 'h3', text: 'JavaScript / TypeScript (пакет `openai`)' },
          { type: 'code', lang: 'bash', title: 'Установка', code: 'npm install openai' },
          { type: 'code', lang: 'javascript', title: 'chat.mjs', code: jsChat },
          { type: 'h3', text: 'Python (пакет `openai`)' },
          { type: 'code', lang: 'bash', title: 'Установка', code: 'pip install openai' },
          { type: 'code', lang: 'python', title: 'chat.py', code: pyChat },
          { type: 'h3', text: 'Потоковые ответы (streaming)' },
          {
            type: 'p',
            text: 'С `"stream": true` ответ приходит по частям в формате Server-Sent Events (`chat.completion.chunk`), поток завершается строкой `data: [DONE]`. С `stream_options.include_usage` последний фрагмент содержит `usage` со стоимостью.',
          },
          { type: 'code', lang: 'bash', title: 'curl', code: curlStream },
          { type: 'code', lang: 'javascript', title: 'JavaScript', code: jsStream },
          { type: 'code', lang: 'python', title: 'Python', code: pyStream },
          { type: 'h3', text: 'Изображения во входных сообщениях' },
          {
            type: 'p',
            text: 'Модели с `capabilities.vision: true` принимают картинки в сообщении — частью `image_url` (ссылка или `data:`-URL), как в API OpenAI.',
          },
          { type: 'code', lang: 'javascript', title: 'JavaScript', code: vision },
        ],
      },
      {
        id: 'images',
        title: 'Генерация изображений',
        blocks: [
          {
            type: 'p',
            text: '`POST /v1/images` (и `/v1/images/generations` — туда обращается официальный SDK) создаёт изображения моделями с `capabilities.image: true`. Поля: `model`, `prompt`, `size` (например `1024x1024`), `quality`, `n` (1–4), `response_format` — `url` или `b64_json`.',
          },
          {
            type: 'p',
            text: 'Стоимость: цена изображения × количество + цена запроса. Ссылки `url` ведут на этот сервер и действуют ограниченное время — сохраните картинку, если она нужна надолго.',
          },
          { type: 'code', lang: 'bash', title: 'curl', code: curlImage },
          { type: 'code', lang: 'javascript', title: 'JavaScript', code: jsImage },
          { type: 'code', lang: 'python', title: 'Python', code: pyImage },
        ],
      },
      {
        id: 'models',
        title: 'Модели',
        blocks: [
          {
            type: 'p',
            text: 'Каталог доступен без ключа: `GET /v1/models` — список, `GET /v1/models/{id}` — одна модель (id вида `provider/name`). Удобный поиск с фильтром по провайдерам — на странице [Модели](/app/models).',
          },
          { type: 'code', lang: 'bash', title: 'curl', code: curlModels },
          { type: 'code', lang: 'json', title: 'Элемент списка', code: modelExample },
          {
            type: 'table',
            head: ['Поле', 'Что означает'],
            rows: [
              ['`id`', 'идентификатор для поля `model` запроса'],
              ['`context_length`', 'размер контекста в токенах'],
              ['`pricing.prompt`, `pricing.completion`', 'цена одного токена запроса и ответа, ₽ (наценка включена)'],
              ['`pricing.image`', 'цена одного изображения, ₽'],
              ['`pricing.request`', 'цена одного запроса, ₽'],
              ['`"-1"`', 'цена переменная и зависит от запроса; списывается фактическая стоимость'],
              ['`capabilities.image`', 'модель генерирует изображения'],
              ['`capabilities.vision`', 'модель принимает изображения во входных сообщениях'],
            ],
          },
        ],
      },
      {
        id: 'errors',
        title: 'Коды ошибок',
        blocks: [
          {
            type: 'p',
            text: 'Ошибки `/v1` приходят в формате OpenAI: HTTP-статус и объект `error` с полями `message` (по-русски), `type`, `code` и `param`. У ошибки нехватки средств есть `action` — куда отправить пользователя.',
          },
          { type: 'code', lang: 'json', title: '402 Payment Required', code: errorExample },
          {
            type: 'table',
            head: ['Статус', '`code`', 'Когда'],
            rows: [
              ['400', '`invalid_request`, `invalid_json`', 'неверные поля или тело запроса не JSON'],
              ['400', '`model_not_image_capable`', 'модель не генерирует изображения'],
              ['401', '`missing_api_key`, `invalid_api_key`', 'ключа нет или он неверный'],
              ['401', '`api_key_disabled`', 'ключ отключён'],
              ['402', '`insufficient_balance`', 'не хватает средств на балансе — пополните баланс или уменьшите `max_tokens`'],
              ['402', '`key_limit_exceeded`', 'исчерпан месячный лимит API ключа'],
              ['403', '`content_blocked`', 'запрос отклонён модерацией провайдера'],
              ['404', '`model_not_found`', 'модели нет в каталоге или она недоступна у провайдера'],
              ['429', '`rate_limit_exceeded`', 'слишком много запросов; повторите позже (см. `Retry-After`)'],
              ['502', '`upstream_error`, `upstream_unreachable`, `no_image`', 'ошибка провайдера модели; деньги не списываются'],
              ['503', '`service_unavailable`', 'сервис временно недоступен'],
              ['504', '`upstream_timeout`', 'провайдер не ответил вовремя'],
            ],
          },
          {
            type: 'note',
            text: 'Официальные SDK сами повторяют запросы при 429 и 5xx. Ошибки, которые повторять бессмысленно (например, 402), сервер помечает заголовком `x-should-retry: false` — SDK его учитывают.',
          },
        ],
      },
    ],
  }
}
