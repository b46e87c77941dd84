// The documentation as data, with this server's address filled in: the page renders it (the
// browser's origin), the server sends the same text to crawlers (PUBLIC_URL).

import { REFERRAL_RULES } from './promo'
import type { Block, RichDocument } from './rich-text'
import { groupRub, PRICING, SBP, TOP_UP, WELCOME_BONUS_RUB } from './terms'

const rub = (n: number) => `${groupRub(n)} ₽`

type CodeBlock = Extract<Block, { type: 'code' }>

/**
 * Code blocks that show one example in several languages (curl, JavaScript, Python…): the page
 * shows each such run as tabs, the crawlers' HTML one block after another. Kept beside the
 * document rather than in it, so the document stays a plain RichDocument.
 */
const tabGroups = new WeakMap<Block, number>()
let lastTabGroup = 0

function tabs(...blocks: CodeBlock[]): CodeBlock[] {
  const group = ++lastTabGroup
  for (const block of blocks) tabGroups.set(block, group)
  return blocks
}

/** The tab group a block belongs to (blocks of one group stand next to each other), if any. */
export const tabGroupOf = (block: Block): number | undefined => tabGroups.get(block)

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

  // A management key (AI_GATEWAY_MANAGEMENT_KEY) makes a limited key for CI.
  const curlLimitedKey = `curl ${origin}/api/auth/api-keys \\
  -H "Authorization: Bearer $AI_GATEWAY_MANAGEMENT_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{
    "name": "CI",
    "rpmLimit": 60,
    "allowedModels": ["openai/*"],
    "allowedIps": ["10.0.0.0/8"],
    "expiresAt": "2027-01-31T23:59:59+03:00"
  }'`

  // Auto top-up is set with the session's token (the web app's), not an API key.
  const curlAutoTopup = `curl -X PUT ${origin}/api/billing/auto-topup \\
  -H "Authorization: Bearer $AI_GATEWAY_SESSION_TOKEN" \\
  -H "Content-Type: application/json" \\
  -d '{
    "enabled": true,
    "thresholdRub": 200,
    "amountRub": 1000,
    "paymentMethodId": "<id из GET /api/payments/methods>",
    "dailyLimitRub": 3000
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
console.log('Стоимость, ₽:', completion.usage?.cost)`

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
})

for await (const chunk of stream) {
  process.stdout.write(chunk.choices[0]?.delta?.content ?? '')
  if (chunk.usage) console.log('\nСтоимость, ₽:', chunk.usage.cost)
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

  // ─── Responses API ──────────────────────────────────────────────────────────
  const curlResponses = `curl ${api}/responses \\
  -H "Authorization: Bearer $AI_GATEWAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{
    "model": "openai/gpt-4o-mini",
    "instructions": "Отвечай кратко.",
    "input": "Привет! Расскажи о себе в двух предложениях."
  }'`

  const jsResponses = `import OpenAI from 'openai'

const client = new OpenAI({
  baseURL: '${api}',
  apiKey: process.env.AI_GATEWAY_API_KEY,
})

const first = await client.responses.create({
  model: 'openai/gpt-4o-mini',
  input: 'Придумай название для кофейни',
})

// Только новое сообщение: предыдущий ответ и его вход сервер подставит сам
const next = await client.responses.create({
  model: 'openai/gpt-4o-mini',
  previous_response_id: first.id,
  input: 'Ещё два варианта, пожалуйста',
})

console.log(next.output_text)
console.log('Стоимость, ₽:', next.usage?.cost)`

  // ─── The Responses API's WebSocket mode ─────────────────────────────────────
  const wsOrigin = origin.replace(/^http/, 'ws')
  const jsResponsesWs = `import OpenAI from 'openai'
import { ResponsesWS } from 'openai/resources/responses/ws' // в Node.js: npm install ws

const client = new OpenAI({
  baseURL: '${api}',
  apiKey: process.env.AI_GATEWAY_API_KEY,
})
const ws = new ResponsesWS(client) // wss://…/v1/responses, ключ — в Authorization
ws.on('error', (e) => console.error(e.message)) // ошибки приходят событиями

const tools = [{
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}]
let previous
let input = 'Какая погода в Казани и в Сочи?'
for (;;) {
  const done = ws.emitted('response.completed') // отклоняется при событии error
  ws.send({ type: 'response.create', model: 'openai/gpt-4o-mini', tools, input, previous_response_id: previous })
  const { response } = await done
  previous = response.id
  const calls = response.output.filter((item) => item.type === 'function_call')
  if (calls.length === 0) break
  // Только новые элементы: результаты инструментов
  input = calls.map((call) => ({ type: 'function_call_output', call_id: call.call_id, output: getWeather(JSON.parse(call.arguments)) }))
}
ws.close()`

  const wscat = `wscat -c ${wsOrigin}/v1/responses -H "Authorization: Bearer $AI_GATEWAY_API_KEY"
> {"type":"response.create","model":"openai/gpt-4o-mini","input":"Привет!"}
< {"type":"response.created","sequence_number":0,"response":{"id":"resp_…","status":"in_progress",…}}
< {"type":"response.output_text.delta","delta":"Привет",…}
< {"type":"response.completed","response":{"id":"resp_…","usage":{"cost":0.0012,…},…}}
> {"type":"response.create","model":"openai/gpt-4o-mini","previous_response_id":"resp_…","input":"А теперь по-английски"}`

  const websocat = `echo '{"type":"response.create","model":"openai/gpt-4o-mini","input":"Привет!"}' |
  websocat -n -H "Authorization: Bearer $AI_GATEWAY_API_KEY" ${wsOrigin}/v1/responses`

  // ─── Claude Code and the Anthropic Messages API ─────────────────────────────
  const claudeEnv = `export ANTHROPIC_BASE_URL="${origin}"
export ANTHROPIC_AUTH_TOKEN="sk-gw-…"
export ANTHROPIC_MODEL="anthropic/claude-sonnet-4.5"

claude`

  const curlMessages = `curl ${api}/messages \\
  -H "x-api-key: $AI_GATEWAY_API_KEY" \\
  -H "anthropic-version: 2023-06-01" \\
  -H "Content-Type: application/json" \\
  -d '{
    "model": "anthropic/claude-sonnet-4.5",
    "max_tokens": 1024,
    "messages": [{"role": "user", "content": "Привет! Расскажи о себе в двух предложениях."}]
  }'`

  const jsAnthropic = `// npm install @anthropic-ai/sdk
import Anthropic from '@anthropic-ai/sdk'

const client = new Anthropic({
  baseURL: '${origin}',
  apiKey: process.env.AI_GATEWAY_API_KEY,
})

const message = await client.messages.create({
  model: 'anthropic/claude-sonnet-4.5',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'Привет! Расскажи о себе в двух предложениях.' }],
})

for (const block of message.content) if (block.type === 'text') console.log(block.text)`

  // ─── Codex CLI ──────────────────────────────────────────────────────────────
  const codexToml = `model = "openai/gpt-4o-mini"
model_provider = "gateway"

[model_providers.gateway]
name = "AI Gateway"
base_url = "${api}"
env_key = "AI_GATEWAY_API_KEY"
wire_api = "responses"`

  const codexRun = `export AI_GATEWAY_API_KEY="sk-gw-…"
codex`

  // ─── Vercel AI SDK ──────────────────────────────────────────────────────────
  const aiSdk = `// npm install ai @ai-sdk/openai
import { createOpenAI } from '@ai-sdk/openai'
import { generateText } from 'ai'

const gateway = createOpenAI({
  baseURL: '${api}',
  apiKey: process.env.AI_GATEWAY_API_KEY,
})

const { text } = await generateText({
  model: gateway('openai/gpt-4o-mini'),
  prompt: 'Привет! Расскажи о себе в двух предложениях.',
})
console.log(text)`

  const aiSdkOpenRouter = `// npm install ai @openrouter/ai-sdk-provider
import { createOpenRouter } from '@openrouter/ai-sdk-provider'
import { generateText } from 'ai'

const gateway = createOpenRouter({
  baseURL: '${api}',
  apiKey: process.env.AI_GATEWAY_API_KEY,
})

const { text, providerMetadata } = await generateText({
  model: gateway('openai/gpt-4o-mini'),
  prompt: 'Привет! Расскажи о себе в двух предложениях.',
})
console.log(text)
console.log('Стоимость, ₽:', providerMetadata?.openrouter?.usage?.cost)`

  // ─── LangChain ──────────────────────────────────────────────────────────────
  const langchainJs = `// npm install @langchain/openai
import { ChatOpenAI } from '@langchain/openai'

const llm = new ChatOpenAI({
  model: 'openai/gpt-4o-mini',
  apiKey: process.env.AI_GATEWAY_API_KEY,
  configuration: { baseURL: '${api}' },
})

const answer = await llm.invoke('Привет! Расскажи о себе в двух предложениях.')
console.log(answer.content)`

  const langchainPy = `# pip install langchain-openai
import os
from langchain_openai import ChatOpenAI

llm = ChatOpenAI(
    model="openai/gpt-4o-mini",
    base_url="${api}",
    api_key=os.environ["AI_GATEWAY_API_KEY"],
)

print(llm.invoke("Привет! Расскажи о себе в двух предложениях.").content)`

  const langchainEmbeddings = `import os
from langchain_openai import OpenAIEmbeddings

embeddings = OpenAIEmbeddings(
    model="openai/text-embedding-3-small",
    base_url="${api}",
    api_key=os.environ["AI_GATEWAY_API_KEY"],
    check_embedding_ctx_length=False,
)

vector = embeddings.embed_query("Как вернуть деньги за заказ?")`

  // ─── embeddings ─────────────────────────────────────────────────────────────
  const curlEmbeddings = `curl ${api}/embeddings \\
  -H "Authorization: Bearer $AI_GATEWAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{
    "model": "openai/text-embedding-3-small",
    "input": ["Как вернуть деньги за заказ?", "Условия возврата товара"]
  }'`

  const embeddingsAnswer = `{
  "object": "list",
  "data": [
    { "object": "embedding", "index": 0, "embedding": [-0.0123, 0.0456, …] },
    { "object": "embedding", "index": 1, "embedding": [0.0078, -0.0311, …] }
  ],
  "model": "openai/text-embedding-3-small",
  "usage": {
    "prompt_tokens": 14,
    "total_tokens": 14,
    "cost": 0.000033,
    "cost_rub": "0.000033"
  }
}`

  const jsEmbeddings = `const result = await client.embeddings.create({
  model: 'openai/text-embedding-3-small',
  input: ['Как вернуть деньги за заказ?', 'Условия возврата товара'],
})

console.log(result.data[0].embedding.length) // 1536`

  const pyEmbeddings = `result = client.embeddings.create(
    model="openai/text-embedding-3-small",
    input=["Как вернуть деньги за заказ?", "Условия возврата товара"],
)

print(len(result.data[0].embedding))  # 1536`

  // ─── voice ──────────────────────────────────────────────────────────────────
  const curlSpeech = `curl ${api}/audio/speech \\
  -H "Authorization: Bearer $AI_GATEWAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{
    "model": "openai/gpt-4o-mini-tts",
    "input": "Здравствуйте! Ваш заказ передан в доставку.",
    "voice": "alloy",
    "response_format": "mp3"
  }' \\
  --output speech.mp3`

  const curlTranscription = `curl ${api}/audio/transcriptions \\
  -H "Authorization: Bearer $AI_GATEWAY_API_KEY" \\
  -F file=@voice.ogg \\
  -F model=openai/whisper-1 \\
  -F language=ru \\
  -F response_format=srt`

  const jsVoice = `import { createReadStream } from 'node:fs'
import { writeFile } from 'node:fs/promises'

const speech = await client.audio.speech.create({
  model: 'openai/gpt-4o-mini-tts',
  input: 'Здравствуйте! Ваш заказ передан в доставку.',
  voice: 'alloy',
})
await writeFile('speech.mp3', Buffer.from(await speech.arrayBuffer()))

const transcript = await client.audio.transcriptions.create({
  model: 'openai/whisper-1',
  file: createReadStream('voice.ogg'),
  language: 'ru',
})
console.log(transcript.text)`

  const pyVoice = `with client.audio.speech.with_streaming_response.create(
    model="openai/gpt-4o-mini-tts",
    input="Здравствуйте! Ваш заказ передан в доставку.",
    voice="alloy",
) as speech:
    speech.stream_to_file("speech.mp3")

with open("voice.ogg", "rb") as f:
    transcript = client.audio.transcriptions.create(model="openai/whisper-1", file=f, language="ru")
print(transcript.text)`

  const transcriptionAnswer = `{
  "text": "Здравствуйте, я по поводу заказа…",
  "usage": { "type": "duration", "seconds": 21, "cost": 0.2457, "cost_rub": "0.2457" }
}`

  // ─── what a request cost ────────────────────────────────────────────────────
  const usageExample = `"usage": {
  "prompt_tokens": 21,
  "completion_tokens": 48,
  "total_tokens": 69,
  "cost": 0.004512,
  "cost_rub": "0.004512"
}`

  const curlGeneration = `curl "${api}/generation?id=gen-1763712345-AbCdEf" \\
  -H "Authorization: Bearer $AI_GATEWAY_API_KEY"`

  const generationExample = `{
  "data": {
    "id": "gen-1763712345-AbCdEf",
    "model": "openai/gpt-4o-mini",
    "created_at": "2025-11-21T09:12:25.000Z",
    "tokens_prompt": 21,
    "tokens_completion": 48,
    "total_cost": 0.004512,
    "currency": "RUB",
    "latency": 1240,
    "status": "success",
    "streamed": false
  }
}`

  const curlKey = `curl ${api}/key \\
  -H "Authorization: Bearer $AI_GATEWAY_API_KEY"`

  const keyExample = `{
  "data": {
    "label": "Бот поддержки",
    "usage": 152.37,
    "usage_monthly": 41.2,
    "limit": 500,
    "limit_remaining": 458.8,
    "limit_reset": "monthly",
    "balance": 1250.5,
    "currency": "RUB",
    "team": null,
    "budgets": {
      "key": { "limit_rub": 500, "period": "month", "spent_rub": 41.2, "remaining_rub": 458.8, "resets_at": "2026-06-30T21:00:00.000Z" },
      "member": null
    }
  }
}`

  const jsRequestId = `const response = await fetch('${api}/chat/completions', {
  method: 'POST',
  headers: { Authorization: \`Bearer \${apiKey}\`, 'Content-Type': 'application/json' },
  body: JSON.stringify({
    model: 'openai/gpt-4o-mini',
    messages: [{ role: 'user', content: 'Привет!' }],
  }),
})
console.log(response.headers.get('x-request-id')) // req_… — назовите его поддержке`

  // «Войти через AI Gateway»: what an app without a server of its own runs in the browser.
  const jsOauthStart = `// code_verifier — секрет приложения, code_challenge — его SHA-256 в base64url
const base64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)))
  .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '')
const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)))
const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
sessionStorage.setItem('ai_gateway_verifier', verifier)

location.href = '${origin}/auth/authorize?' + new URLSearchParams({
  callback_url: \`\${location.origin}/callback\`,
  code_challenge: base64url(digest),
  code_challenge_method: 'S256',
})`

  const jsOauthExchange = `// Страница /callback: браузер вернулся с ?code=… (или ?error=access_denied)
const code = new URLSearchParams(location.search).get('code')
const response = await fetch('${origin}/api/v1/auth/keys', {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ code, code_verifier: sessionStorage.getItem('ai_gateway_verifier') }),
})
const { key, user_id } = await response.json() // key: sk-gw-… — ключ пользователя для ${api}`

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
              `[Зарегистрируйтесь](/register) и подтвердите адрес электронной почты по ссылке из письма — после подтверждения на баланс начисляется приветственный бонус ${rub(WELCOME_BONUS_RUB)}.`,
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
              ['Авторизация', '`Authorization: Bearer sk-gw-…` (для `/v1/messages` — также `x-api-key`)'],
              ['Формат', 'JSON, как у OpenAI; потоковые ответы — Server-Sent Events'],
              ['Каталог моделей', `\`GET ${api}/models\` или страница [Модели](/app/models)`],
            ],
          },
          { type: 'code', lang: 'bash', title: 'Первый запрос', code: curlChat },
          { type: 'h3', text: 'Протоколы и инструменты' },
          {
            type: 'p',
            text: 'Кроме Chat Completions сервер говорит на протоколах, которые используют популярные инструменты, — ключ и баланс одни и те же:',
          },
          {
            type: 'table',
            head: ['Адрес', 'Протокол', 'Кто использует'],
            rows: [
              ['`POST /v1/chat/completions`', 'OpenAI Chat Completions', 'SDK `openai`, [LangChain](#langchain), [OpenRouter-провайдер AI SDK](#vercel-ai-sdk)'],
              ['`POST /v1/responses`', '[OpenAI Responses](#responses-api)', '[Codex CLI](#codex-cli), [Vercel AI SDK](#vercel-ai-sdk)'],
              ['`GET /v1/responses` (WebSocket)', '[Responses API по WebSocket](#responses-websocket)', 'агентные циклы, `ResponsesWS` из SDK `openai`'],
              ['`POST /v1/messages`', 'Anthropic Messages', '[Claude Code](#claude-code), SDK `@anthropic-ai/sdk`'],
              ['`POST /v1/embeddings`', '[OpenAI Embeddings](#embeddings)', 'RAG, поиск, `OpenAIEmbeddings` в LangChain'],
              ['`POST /v1/images`', '[Генерация изображений](#images)', 'SDK `openai` (`images.generate`)'],
              [
                '`POST /v1/audio/speech`, `POST /v1/audio/transcriptions`',
                '[Озвучка и распознавание речи](#voice)',
                'SDK `openai` (`audio.speech`, `audio.transcriptions`), `gw speak`, `gw transcribe`',
              ],
              ['`GET /v1/generation`, `GET /v1/key`', '[Стоимость и расходы](#request-cost)', 'учёт затрат в ваших скриптах'],
            ],
          },
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
              'Для каждого ключа можно задать бюджет — лимит в рублях на день, неделю (пн–вс), месяц или без периода; день начинается в 00:00 по Москве. Запросы сверх бюджета получают ошибку 402 `budget_exceeded`, в `error.metadata` — какой бюджет (`level`), его лимит, период и время обновления `resets_at`.',
              'Бюджет не превышается никогда: для моделей с переменной ценой (например, `openrouter/auto`) шлюз передаёт маршрутизатору потолок цены `provider.max_price` и `max_tokens`, рассчитанные из зарезервированной суммы, а веб-поиск и изображения у таких моделей при бюджете недоступны (402 `limit_uncappable`).',
              'В команде у ключа два уровня сразу: бюджет ключа и бюджет участника, и платит баланс команды. Ключ, созданный в команде, работает только в ней; когда участника исключают, его ключи команды перестают работать сразу.',
              'Ключ можно отключить (запросы с ним получат 401 `api_key_disabled`), снова включить или удалить.',
            ],
          },
          { type: 'code', lang: 'bash', title: 'Переменная окружения', code: 'export AI_GATEWAY_API_KEY="sk-gw-…"' },
          { type: 'h3', text: 'Ограничения ключа' },
          {
            type: 'p',
            text: 'Кроме бюджета, у ключа могут быть ограничения — задайте их при создании или в меню ключа «Ограничения…» (в API — поля `POST`/`PATCH /api/auth/api-keys`, `null` снимает ограничение). Отказ приходит в формате ошибок OpenAI (в `/v1/messages` — Anthropic) и записывается в [журнал активности](/app/activity).',
          },
          {
            type: 'table',
            head: ['Поле', 'Что ограничивает', 'Ответ сверх него'],
            rows: [
              ['`rpmLimit`', 'запросов в минуту', '429 `rate_limit_exceeded`, заголовок `Retry-After`'],
              ['`tpmLimit`', 'токенов в минуту (по данным провайдера)', '429 `rate_limit_exceeded`, `Retry-After`'],
              ['`allowedModels`', 'модели: точный id или шаблон `openai/*`', '403 `model_not_allowed`'],
              ['`allowedIps`', 'адреса и сети IPv4/IPv6 (`10.0.0.0/8`)', '403 `ip_not_allowed`'],
              ['`expiresAt`', 'срок действия (ISO 8601)', '401 `key_expired`'],
            ],
          },
          {
            type: 'ul',
            items: [
              'Каждый ответ ключа с лимитом несёт заголовки OpenAI `x-ratelimit-limit-requests`, `x-ratelimit-remaining-requests`, `x-ratelimit-reset-requests` (и `…-tokens`): SDK OpenAI сами ждут и повторяют запрос после 429.',
              'С ключом `GET /v1/models` показывает только модели, которые ему разрешены.',
              '«Ответ по средствам» (`fitToBalance: true` у ключа или в политике команды): если баланса или бюджета не хватает на запрошенный `max_tokens`, шлюз уменьшает его до того, что покрывают средства (не меньше 16 токенов), вместо ошибки 402 и сообщает новое значение в заголовке `x-max-tokens-clamped`. По умолчанию выключено.',
              'В команде владелец и администратор задают модели для всей команды и ограничения новых ключей (страница [Команда](/app/team)). Ключ может только сузить политику команды; ограничения, заданные администратором, участник может ужесточить, но не ослабить.',
              'Управляющий ключ (тип «Управляющий», `kind: "management"`) управляет ключами (`/api/auth/api-keys`), читает баланс (`GET /api/billing/balance`) и активность (`GET /api/activity`) — например, из CI. К моделям он доступа не имеет: `/v1` отвечает 403 `management_key_not_allowed`.',
            ],
          },
          { type: 'code', lang: 'bash', title: 'Ключ для CI: 60 запросов в минуту, только openai/*, до конца января', code: curlLimitedKey },
        ],
      },
      {
        id: 'billing',
        title: 'Оплата и баланс',
        blocks: [
          {
            type: 'p',
            text: `Баланс предоплаченный, в рублях. Стоимость запроса — фактическая стоимость у провайдера модели в долларах США × курс ЦБ РФ × наценка ${PRICING.markupPercent}%. Цены моделей в рублях видны в каталоге и в Playground до отправки: токены — за 1M токенов, изображения — за входное (отправленное модели) и за сгенерированное изображение.`,
          },
          {
            type: 'ul',
            items: [
              'Перед запросом резервируется его максимально возможная стоимость, после ответа списывается точная сумма, остаток резерва сразу освобождается.',
              'Неуспешные запросы не оплачиваются. Списанная сумма возвращается в каждом ответе: `usage.cost`, в рублях (подробнее — в разделе [Стоимость запроса](#request-cost)).',
              'Если `max_tokens` не задан, длина ответа ограничивается суммой, на которую хватает баланса. Если заданный `max_tokens` не по карману — ответ 402 `insufficient_balance` с подсказкой, сколько токенов покрывает баланс.',
              `Пополнение — от ${rub(TOP_UP.minRub)} до ${rub(TOP_UP.maxRub)} на странице [Баланс](/app/billing) банковской картой или через СБП (до ${rub(SBP.maxRub)}); там же история операций.`,
              'Расходы по дням, моделям и ключам — на странице [Статистика](/app/usage), с выгрузкой в CSV.',
              'Промокод вводится в поле «Промокод» на странице [Баланс](/app/billing) (или `POST /api/billing/promo` с `{ "code": "…" }`): сумма сразу зачисляется на баланс — личный или команды, в которой вы владелец, администратор или бухгалтер. Каждый промокод активируется один раз на аккаунт, нужен подтверждённый e-mail.',
              `Реферальная ссылка вида \`/r/код\` — на странице [Аккаунт](/app/account), блок «Пригласите друзей». Когда зарегистрировавшийся по ней впервые пополнит баланс картой или по счёту на ${rub(REFERRAL_RULES.minPaymentRub)} или больше, бонус получаете оба — один раз, не больше ${REFERRAL_RULES.monthlyLimit} бонусов в месяц; размер бонуса указан там же. Если программа не действует, блок об этом говорит.`,
              'Неиспользованный остаток можно вернуть по [Политике возврата](/refund-policy); средства по промокодам и реферальные бонусы не возвращаются и расходуются в первую очередь.',
            ],
          },
          { type: 'h3', text: 'СБП, сохранённые карты и автопополнение' },
          {
            type: 'ul',
            items: [
              `СБП (Система быстрых платежей): выберите «СБП» в форме пополнения (в API — \`POST /api/payments/create\` с \`"method": "sbp"\`, в терминале — \`gw topup 500 --sbp\`). На компьютере ЮKassa покажет QR-код для приложения банка, на телефоне — список банков. Сумма — от ${rub(TOP_UP.minRub)} до ${rub(SBP.maxRub)}, на оплату даётся ${SBP.payWindowMinutes / 60} час: неоплаченный платёж отменяется.`,
              'Сохранить карту: отметьте «Сохранить карту для следующих платежей и автопополнения» при пополнении картой (`"savePaymentMethod": true`, `gw topup 500 --save-card`). Карту хранит ЮKassa; у нас — только её название, последние 4 цифры и срок действия. Список — «Сохранённые способы оплаты» на странице [Баланс](/app/billing) (`GET /api/payments/methods`), удалить — там же (`DELETE /api/payments/methods/{id}`). Карта, сохранённая в команде, принадлежит команде.',
              'Автопополнение (форма «Автопополнение» на странице [Баланс](/app/billing), `GET`/`PUT /api/billing/auto-topup`, `gw autotopup`): когда доступный баланс — баланс за вычетом резерва выполняющихся запросов — опускается ниже порога `thresholdRub`, с выбранной сохранённой карты списывается `amountRub` без подтверждения, с чеком 54-ФЗ, и сразу зачисляется. Одновременно проводится не больше одного такого платежа, и не больше `dailyLimitRub` за сутки по московскому времени.',
              'После каждого автоматического списания приходит письмо. Если банк отклонил списание по временной причине (недостаточно средств, банк недоступен), автопополнение попробует снова позже — не больше трёх неудачных попыток в сутки. Если карта больше не может быть списана (истёк срок, отозвано разрешение, подозрение в мошенничестве), автопополнение выключается само, письмо и форма на странице называют причину.',
              'Выключить автопополнение можно в любой момент: переключатель в форме, `gw autotopup --off` или `PUT /api/billing/auto-topup` с `"enabled": false`; удаление карты тоже выключает его. В команде автопополнение настраивают владелец, администратор и бухгалтер; изменения видны в журнале действий команды.',
            ],
          },
          {
            type: 'code',
            lang: 'bash',
            title: 'Автопополнение: 1 000 ₽, когда баланс ниже 200 ₽, не больше 3 000 ₽ в сутки (токен — accessToken из POST /api/auth/login)',
            code: curlAutoTopup,
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
            text: 'С `"stream": true` ответ приходит по частям в формате Server-Sent Events (`chat.completion.chunk`), поток завершается строкой `data: [DONE]`. Перед ней всегда приходит фрагмент с `usage` и стоимостью — `stream_options` для этого не нужен.',
          },
          ...tabs(
            { type: 'code', lang: 'bash', title: 'curl', code: curlStream },
            { type: 'code', lang: 'javascript', title: 'JavaScript', code: jsStream },
            { type: 'code', lang: 'python', title: 'Python', code: pyStream },
          ),
          { type: 'h3', text: 'Изображения во входных сообщениях' },
          {
            type: 'p',
            text: 'Модели с `capabilities.vision: true` принимают картинки в сообщении — частью `image_url` (ссылка или `data:`-URL), как в API OpenAI.',
          },
          { type: 'code', lang: 'javascript', title: 'JavaScript', code: vision },
        ],
      },
      {
        id: 'responses-api',
        title: 'Responses API',
        blocks: [
          {
            type: 'p',
            text: '`POST /v1/responses` — новый протокол OpenAI (Responses API): поля `model`, `input` (строка или список сообщений), `instructions`, `max_output_tokens`, `tools`, `stream`, `previous_response_id`, `store`. Ответ — объект `response` с массивом `output`; с `"stream": true` приходят события `response.output_text.delta` … `response.completed`. Тот же протокол работает и [по WebSocket](#responses-websocket).',
          },
          {
            type: 'ul',
            items: [
              'Ответы хранятся 30 дней: входные элементы запроса, `output` и `usage`. `previous_response_id` продолжает цепочку — передавайте только новые элементы, сервер подставит всю предыдущую историю сам. С `"store": false` ответ не сохраняется; историю тогда передавайте в `input` целиком (так по умолчанию работают Codex CLI и Vercel AI SDK).',
              'Резерв и списание считаются по всему входу, который получает модель, — вместе с подставленной историей, как если бы вы отправили её сами. `instructions` и `tools` не наследуются: передавайте их в каждом запросе.',
              '`GET /v1/responses/{id}` — сохранённый ответ, `GET /v1/responses/{id}/input_items` — все входные элементы, из которых он получен (формат списка OpenAI: `limit`, `order`, `after`), `DELETE /v1/responses/{id}` — удалить. Неизвестный, удалённый, истёкший или чужой id — 404 `previous_response_not_found` (у `GET` и `DELETE` — `response_not_found`).',
              'Одна цепочка — не больше 16 МБ JSON (входы и ответы всех её шагов): продолжение, после которого она стала бы больше, получает 400 `chain_too_large` — начните новую цепочку с нужной частью истории в `input`. Цепочка, которую продолжают, не истекает: срок её начала продлевается.',
            ],
          },
          ...tabs({ type: 'code', lang: 'bash', title: 'curl', code: curlResponses }, { type: 'code', lang: 'javascript', title: 'JavaScript', code: jsResponses }),
        ],
      },
      {
        id: 'responses-websocket',
        title: 'Responses API по WebSocket',
        blocks: [
          {
            type: 'p',
            text: `Для агентных циклов с десятками вызовов инструментов: одно постоянное соединение \`${wsOrigin}/v1/responses\` вместо HTTP-запроса на каждый шаг. Каждый шаг — событие \`response.create\` с \`previous_response_id\` и только новыми элементами (результаты инструментов, следующее сообщение); цепочку сервер держит сам, поэтому клиент не пересылает историю, а ответ начинается быстрее.`,
          },
          {
            type: 'ul',
            items: [
              'Ключ — как у HTTP: `Authorization: Bearer sk-gw-…` или `x-api-key` в запросе на подключение. Неверный ключ — ответ 401 до перехода на WebSocket.',
              'Клиент отправляет текстовые кадры `{"type":"response.create", …}` — поля те же, что у `POST /v1/responses`, без `stream` и `background`. Сервер отвечает теми же событиями, что и поток HTTP: `response.created` … `response.completed`, по одному JSON в кадре; `usage.cost` — списанная сумма в рублях.',
              'Соединение помнит цепочку последнего ответа: её можно продолжать даже со `"store": false` (но только в этом соединении). Сохранённые ответы продолжаются из любого соединения и по HTTP.',
              '`"generate": false` готовит цепочку (инструкции, инструменты, контекст) и сразу возвращает id ответа — без вызова модели и без списания; такой ответ живёт только в памяти соединения.',
              'Каждый шаг резервируется и списывается так же, как HTTP-запрос. Если денег не хватило — событие `error` с кодом `insufficient_balance`, соединение остаётся открытым: пополните баланс и повторите шаг.',
              'Ошибки — события `{"type":"error", "status", "error": {"type", "code", "message", "param"}}`: `response_already_in_flight` (в соединении выполняется один ответ за раз), `previous_response_not_found`, `invalid_json`, `unknown_event`, `request_too_large`. Соединение после них остаётся открытым.',
              'Если соединение оборвалось, запрос к модели сразу останавливается: резерв освобождается, списывается только то, что модель успела сгенерировать.',
            ],
          },
          ...tabs(
            { type: 'code', lang: 'javascript', title: 'JavaScript (openai)', code: jsResponsesWs },
            { type: 'code', lang: 'bash', title: 'wscat', code: wscat },
            { type: 'code', lang: 'bash', title: 'websocat', code: websocat },
          ),
          { type: 'h3', text: 'Пределы' },
          {
            type: 'table',
            head: ['Что', 'Предел', 'Что происходит'],
            rows: [
              [
                'Время жизни соединения',
                '60 минут',
                'событие `error` с кодом `websocket_connection_limit_reached`, затем закрытие с кодом 1000 и причиной; откройте новое соединение',
              ],
              ['Соединений на ключ / на аккаунт', '8 / 16', 'событие `error` с кодом `too_many_connections` и закрытие с кодом 1008'],
              ['Размер события', '32 МБ, как у тела HTTP-запроса', 'событие `error` с кодом `request_too_large` (кадр больше 64 МБ закрывает соединение с кодом 1009)'],
              ['Размер цепочки', '16 МБ JSON', 'продолжение сверх предела — событие `error` с кодом `chain_too_large`'],
              ['Ответов одновременно', '1 на соединение', 'событие `error` с кодом `response_already_in_flight`; для параллельных задач откройте несколько соединений'],
              ['Простой', '—', 'сервер пингует соединение примерно раз в минуту; клиент, который не отвечает, отключается через 2 минуты'],
            ],
          },
          {
            type: 'note',
            text: 'При обновлении сервера соединения закрываются с кодом 1001 (после текущего ответа). Сохранённые цепочки продолжаются после переподключения по `previous_response_id`; цепочки со `"store": false` живут только в своём соединении.',
          },
        ],
      },
      {
        id: 'claude-code',
        title: 'Claude Code',
        blocks: [
          {
            type: 'p',
            text: 'Claude Code и другие клиенты Anthropic работают через `POST /v1/messages` — Anthropic Messages API, включая потоковые ответы, инструменты и `POST /v1/messages/count_tokens`. Ключ принимается в заголовке `x-api-key` или `Authorization: Bearer`.',
          },
          {
            type: 'p',
            text: '`POST /v1/messages/count_tokens` бесплатен и отвечает всегда. Если провайдер не умеет считать токены или недоступен, число оценивает сам шлюз — так же, как для резерва средств, с запасом, — и добавляет заголовок `x-token-count-estimated: true`.',
          },
          { type: 'h3', text: 'Подключение' },
          {
            type: 'p',
            text: 'Задайте переменные окружения и запустите `claude`. Адрес — без `/v1`: Claude Code добавляет путь сам.',
          },
          { type: 'code', lang: 'bash', title: 'Терминал', code: claudeEnv },
          {
            type: 'ul',
            items: [
              '`ANTHROPIC_AUTH_TOKEN` отправляется как `Authorization: Bearer`; вместо него можно задать `ANTHROPIC_API_KEY` — тогда ключ придёт в `x-api-key`.',
              '`ANTHROPIC_MODEL` выбирает любую модель из [каталога](/app/models), например `anthropic/claude-sonnet-4.5`. Собственные имена Claude Code (`claude-sonnet-4-5-20250929` и другие) тоже понимаются: они сопоставляются моделям каталога, например `anthropic/claude-sonnet-4.5`.',
              'Быструю модель для фоновых задач можно задать переменной `ANTHROPIC_DEFAULT_HAIKU_MODEL`.',
              'Расходы Claude Code видны на странице [Статистика](/app/usage) — удобно завести для него отдельный ключ с месячным бюджетом.',
            ],
          },
          { type: 'h3', text: 'Запрос к /v1/messages' },
          ...tabs({ type: 'code', lang: 'bash', title: 'curl', code: curlMessages }, { type: 'code', lang: 'javascript', title: 'JavaScript', code: jsAnthropic }),
          {
            type: 'note',
            text: 'Ошибки `/v1/messages` приходят в формате Anthropic: `{"type": "error", "error": {"type": …, "message": …}}`. Когда на балансе не хватает средств или исчерпан бюджет ключа, ответ — **402 с типом `billing_error`** и подсказкой, где пополнить баланс; Claude Code покажет это сообщение и не будет повторять запрос.',
          },
        ],
      },
      {
        id: 'codex-cli',
        title: 'Codex CLI',
        blocks: [
          {
            type: 'p',
            text: 'Codex CLI от OpenAI подключается как отдельный провайдер с протоколом Responses (`wire_api = "responses"`). Добавьте его в `~/.codex/config.toml`:',
          },
          { type: 'code', lang: 'toml', title: '~/.codex/config.toml', code: codexToml },
          { type: 'code', lang: 'bash', title: 'Терминал', code: codexRun },
          {
            type: 'p',
            text: 'Модель меняется полем `model` (или флагом `codex -m anthropic/claude-sonnet-4.5`) — подойдёт любая текстовая модель из [каталога](/app/models).',
          },
        ],
      },
      {
        id: 'vercel-ai-sdk',
        title: 'Vercel AI SDK',
        blocks: [
          {
            type: 'p',
            text: 'Провайдер по умолчанию из `@ai-sdk/openai` говорит на Responses API — укажите наш адрес в `baseURL`. Работают `generateText`, `streamText`, инструменты и структурированный вывод. Провайдер OpenRouter (`@openrouter/ai-sdk-provider`) тоже работает с нашим адресом; стоимость запроса в рублях он отдаёт в `providerMetadata.openrouter.usage.cost`.',
          },
          ...tabs({ type: 'code', lang: 'javascript', title: 'По умолчанию', code: aiSdk }, { type: 'code', lang: 'javascript', title: 'OpenRouter', code: aiSdkOpenRouter }),
          {
            type: 'p',
            text: "Для Chat Completions вместо Responses используйте `gateway.chat('openai/gpt-4o-mini')`, для эмбеддингов — `gateway.embedding('openai/text-embedding-3-small')` с функцией `embed`.",
          },
        ],
      },
      {
        id: 'langchain',
        title: 'LangChain',
        blocks: [
          {
            type: 'p',
            text: 'В LangChain подключайтесь через OpenAI-интеграцию (`ChatOpenAI`), указав наш адрес и ключ. Так же настраивается `OpenAIEmbeddings` с моделью эмбеддингов.',
          },
          ...tabs({ type: 'code', lang: 'javascript', title: 'JavaScript', code: langchainJs }, { type: 'code', lang: 'python', title: 'Python', code: langchainPy }),
          {
            type: 'p',
            text: 'В Python у `OpenAIEmbeddings` выключите `check_embedding_ctx_length`: иначе текст уходит на сервер токенами tiktoken, а не строкой.',
          },
          { type: 'code', lang: 'python', title: 'Эмбеддинги в Python', code: langchainEmbeddings },
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
          ...tabs(
            { type: 'code', lang: 'bash', title: 'curl', code: curlImage },
            { type: 'code', lang: 'javascript', title: 'JavaScript', code: jsImage },
            { type: 'code', lang: 'python', title: 'Python', code: pyImage },
          ),
        ],
      },
      {
        id: 'embeddings',
        title: 'Эмбеддинги',
        blocks: [
          {
            type: 'p',
            text: '`POST /v1/embeddings` превращает тексты в векторы — для поиска, RAG и кластеризации. Формат как у OpenAI: `model`, `input` (строка или массив строк), `dimensions` (если модель умеет укорачивать векторы), `encoding_format` — `float` или `base64`.',
          },
          {
            type: 'p',
            text: 'Модели эмбеддингов отмечены в `GET /v1/models` полем `capabilities.embeddings: true` и типом «Эмбеддинги» в [каталоге](/app/models). Оплачиваются только входные токены — по цене `pricing.prompt`; цены ответа у них нет. Резервируется каждый токен, за который провайдер может выставить счёт, как бы длинен ни был вход: байт текста в UTF-8 (ни один токенизатор не делает токен короче байта) или элемент массива токенов — один токен, плюс 4 служебных на вход; списывается стоимость, которую сообщил провайдер, остальное возвращается на баланс.',
          },
          ...tabs(
            { type: 'code', lang: 'bash', title: 'curl', code: curlEmbeddings },
            { type: 'code', lang: 'javascript', title: 'JavaScript', code: jsEmbeddings },
            { type: 'code', lang: 'python', title: 'Python', code: pyEmbeddings },
          ),
          { type: 'code', lang: 'json', title: 'Ответ', code: embeddingsAnswer },
        ],
      },
      {
        id: 'voice',
        title: 'Озвучка и распознавание речи',
        blocks: [
          {
            type: 'p',
            text: '`POST /v1/audio/speech` озвучивает текст (`model`, `input` до 4096 символов, `voice`, `response_format` — mp3, opus, aac, flac, wav или pcm, `speed`, `instructions`): ответ — сам звук, он приходит потоком по мере синтеза. Резервируется цена модели за символ × длина текста, списывается стоимость генерации у провайдера; заголовок `X-Generation-Id` — её id для [`/v1/generation`](#request-cost).',
          },
          {
            type: 'p',
            text: '`POST /v1/audio/transcriptions` распознаёт речь в записи: multipart с полем `file`, как отправляют SDK OpenAI, или JSON с `input_audio: {data: <base64>, format}`. WAV, MP3, OGG/Opus (голосовые сообщения мессенджеров), WebM, M4A, FLAC и AAC, до 25 МБ; `response_format` — json, text, srt, vtt или verbose_json. Длительность измеряется по самим данным — кадрам MP3 и AAC, отсчётам WAV, кадрам FLAC, пакетам Opus в OGG и WebM, кадрам AAC в M4A, — а не по заголовку файла; для кодеков, которые так не измерить (Vorbis, ALAC и другие), берётся верхняя граница: размер файла при 6 кбит/с. Резервируется цена за секунду × эта длительность; файл, длительность которого не измерить, отклоняется с ошибкой 400 (`invalid_audio`), запись длиннее 10 часов — тоже (`audio_too_long`).',
          },
          {
            type: 'p',
            text: 'Модели отмечены в `GET /v1/models` полем `type` (`speech`, `transcription`) и типами «Озвучка» и «Распознавание речи» в [каталоге](/app/models); цены — `pricing.character` за символ и `pricing.audio_second` за секунду записи. В Playground — микрофон в поле ввода и кнопка «Озвучить» под ответом.',
          },
          ...tabs(
            { type: 'code', lang: 'bash', title: 'curl: озвучка', code: curlSpeech },
            { type: 'code', lang: 'bash', title: 'curl: распознавание', code: curlTranscription },
            { type: 'code', lang: 'javascript', title: 'JavaScript', code: jsVoice },
            { type: 'code', lang: 'python', title: 'Python', code: pyVoice },
          ),
          { type: 'code', lang: 'json', title: 'Ответ распознавания (json)', code: transcriptionAnswer },
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
              ['`pricing.prompt`, `pricing.completion`', 'цена одного токена запроса и ответа, ₽ (наценка включена); каталог и Playground показывают её за 1M токенов'],
              ['`pricing.image`', 'цена за входное изображение (картинку в запросе), ₽'],
              ['`pricing.image_output`', 'цена за сгенерированное изображение, ₽'],
              ['`pricing.request`', 'цена одного запроса, ₽'],
              ['`"-1"`', 'цена переменная и зависит от запроса; списывается фактическая стоимость'],
              ['`capabilities.image`', 'модель генерирует изображения'],
              ['`capabilities.vision`', 'модель принимает изображения во входных сообщениях'],
              ['`type`', 'для чего модель: `chat`, `image`, `embeddings`, `speech` (озвучка), `transcription` (распознавание речи)'],
              ['`pricing.character`, `pricing.audio_second`', 'озвучка: цена символа текста; распознавание: цена секунды записи, ₽'],
            ],
          },
        ],
      },
      {
        id: 'request-cost',
        title: 'Стоимость запроса',
        blocks: [
          {
            type: 'p',
            text: 'Каждый ответ сообщает, сколько списано: `usage.cost` — сумма в рублях (число), `usage.cost_rub` — она же строкой, без округлений. Так во всех протоколах: в Chat Completions, Responses, Messages и эмбеддингах. В потоковом ответе `usage` приходит в последнем фрагменте всегда, даже без `stream_options`.',
          },
          { type: 'code', lang: 'json', title: 'Фрагмент ответа', code: usageExample },
          { type: 'h3', text: 'Один запрос: GET /v1/generation' },
          {
            type: 'p',
            text: 'По `id` из ответа (`gen-…`, а у Messages и Responses — `msg_…` и `resp_…`) можно позже узнать подробности своего запроса: модель, токены, стоимость `total_cost` в рублях, время ответа `latency` в миллисекундах, статус и был ли ответ потоковым. Чужие запросы не находятся (404).',
          },
          ...tabs({ type: 'code', lang: 'bash', title: 'curl', code: curlGeneration }, { type: 'code', lang: 'json', title: 'Ответ', code: generationExample }),
          { type: 'h3', text: 'Расходы ключа: GET /v1/key' },
          {
            type: 'p',
            text: 'Возвращает сведения о ключе, с которым сделан запрос: название `label`, расходы за всё время `usage` и за текущий месяц `usage_monthly`, бюджет ключа как `limit`, `limit_remaining` и `limit_reset` (`null`, если лимита нет), баланс счёта `balance` (команды — для ключа команды), команду `team` и бюджеты `budgets.key` и `budgets.member`: лимит, период, потрачено, остаток и время обновления. Все суммы — в рублях.',
          },
          ...tabs({ type: 'code', lang: 'bash', title: 'curl', code: curlKey }, { type: 'code', lang: 'json', title: 'Ответ', code: keyExample }),
        ],
      },
      {
        id: 'cors',
        title: 'CORS и x-request-id',
        blocks: [
          {
            type: 'ul',
            items: [
              'Адреса `/v1` доступны из браузера с любого сайта (CORS для любого origin). Предварительный запрос разрешает заголовки `Authorization`, `Content-Type`, `x-api-key`, `anthropic-version` и `anthropic-beta`. Помните: ключ, встроенный в код страницы, увидит любой посетитель — для публичных сайтов отправляйте запросы через свой сервер.',
              'В каждом ответе есть заголовок `x-request-id`, он доступен и из JavaScript в браузере. Если вы передали свой `x-request-id`, он вернётся в ответе. Укажите его, когда пишете в поддержку, — так мы быстрее найдём запрос.',
            ],
          },
          { type: 'code', lang: 'javascript', title: 'fetch в браузере', code: jsRequestId },
        ],
      },
      {
        id: 'oauth-pkce',
        title: 'Войти через AI Gateway (OAuth PKCE)',
        blocks: [
          {
            type: 'p',
            text: 'Кнопка «Войти через AI Gateway» в вашем приложении: пользователь входит в свой аккаунт, разрешает доступ — и приложение получает его API-ключ. Запросы оплачиваются с баланса пользователя, а не с вашего; свой сервер и хранение паролей не нужны. Протокол — OAuth 2.0 с PKCE в том же виде, что у OpenRouter: достаточно поменять адрес.',
          },
          {
            type: 'ol',
            items: [
              'Приложение создаёт случайный секрет `code_verifier` (43–128 символов) и `code_challenge` — SHA-256 от него в base64url.',
              `Отправляет пользователя на \`${origin}/auth/authorize?callback_url=…&code_challenge=…&code_challenge_method=S256\`.`,
              'Пользователь входит (или регистрируется), видит адрес приложения, при желании задаёт лимит расходов в месяц и нажимает «Разрешить» — браузер вернётся на `callback_url?code=…`. Если он нажмёт «Отклонить» — на `callback_url?error=access_denied`.',
              `Приложение обменивает код: \`POST ${origin}/api/v1/auth/keys\` с телом \`{"code", "code_verifier"}\` — в ответ \`{"key": "sk-gw-…", "user_id": "…"}\`. С этим ключом оно обращается к \`${api}\`, как с любым другим.`,
            ],
          },
          {
            type: 'ul',
            items: [
              '`callback_url` — адрес `https://`; `http://` разрешён только для `localhost`, `127.0.0.1` и `[::1]` (разработка). Его параметры (например, `state`) сохраняются — `code` добавляется к ним.',
              'Поддерживается только `code_challenge_method=S256`; метод `plain` отклоняется.',
              'Код одноразовый и действует 10 минут; без верного `code_verifier` его не обменять.',
              'Ключ создаётся в личном аккаунте пользователя, называется адресом приложения (например, `https://app.example.ru`) и получает выбранный лимит в месяц. Пользователь видит его на странице [API ключи](/app/api-keys) и может в любой момент отключить или удалить.',
              '`POST /api/v1/auth/keys` не требует авторизации и доступен из браузера с любого сайта (CORS). Ответ — простой JSON без обёртки `{success, data}`, ошибки — в формате OpenAI.',
            ],
          },
          { type: 'code', lang: 'javascript', title: '1. Кнопка «Войти через AI Gateway»', code: jsOauthStart },
          { type: 'code', lang: 'javascript', title: '2. Обмен кода на ключ', code: jsOauthExchange },
          {
            type: 'table',
            head: ['Статус', '`code`', 'Когда'],
            rows: [
              ['400', '`invalid_code`', 'кода нет или он не был выдан'],
              ['400', '`code_already_used`', 'код уже обменян на ключ'],
              ['400', '`code_expired`', 'прошло больше 10 минут'],
              ['400', '`invalid_code_verifier`', '`code_verifier` не соответствует `code_challenge`'],
              ['400', '`invalid_code_challenge_method`', 'передан метод, отличный от `S256`'],
              ['429', '`rate_limit_exceeded`', 'слишком много попыток с одного адреса; повторите через `Retry-After` секунд'],
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
              ['402', '`budget_exceeded`', 'исчерпан бюджет ключа или участника команды: `error.metadata` — `{level, limit_rub, period, resets_at}`'],
              [
                '402',
                '`limit_uncappable`',
                'у ключа или участника есть бюджет, а стоимость запроса к модели с переменной ценой нельзя ограничить заранее (веб-поиск, изображения)',
              ],
              ['403', '`permission_denied`', 'роль в команде не даёт доступа к API (например, «Бухгалтер»)'],
              ['403', '`content_blocked`', 'запрос отклонён модерацией провайдера'],
              ['404', '`model_not_found`', 'модели нет в каталоге или она недоступна у провайдера'],
              ['429', '`rate_limit_exceeded`', 'слишком много запросов; повторите позже (см. `Retry-After`)'],
              ['502', '`upstream_error`, `upstream_unreachable`, `no_image`', 'ошибка провайдера модели; деньги не списываются'],
              [
                '503',
                '`upstream_unavailable`',
                'провайдер моделей сейчас не работает: шлюз не отправляет ему запросы и сразу отвечает этой ошибкой; повторите через `Retry-After` секунд, состояние — на странице [/status](/status). В `/v1/messages` — ошибка Anthropic `overloaded_error`',
              ],
              ['503', '`service_unavailable`', 'сервис временно недоступен'],
              [
                '503',
                '`database_unavailable`',
                'база данных шлюза не отвечает; повторите через `Retry-After` секунд. Запросы, ответ на которые уже получен, будут списаны, когда она вернётся — один раз. В `/v1/messages` — `overloaded_error`',
              ],
              ['504', '`upstream_timeout`', 'провайдер не ответил вовремя'],
            ],
          },
          {
            type: 'note',
            text: 'Официальные SDK сами повторяют запросы при 429 и 5xx. Ошибки, которые повторять бессмысленно (например, 402), сервер помечает заголовком `x-should-retry: false` — SDK его учитывают. Шлюз и сам повторяет запрос к провайдеру (до двух раз), если тот не ответил или ответил 429, 502, 503 или 504 до первого байта ответа, а при сбое основного провайдера может отправить запрос резервному: деньги списываются один раз, за ответ, который вы получили.',
          },
        ],
      },
    ],
  }
}
