import { t } from 'elysia'
import { MAX_AUDIO_SECONDS } from '../lib/audio-duration'
import { SPEECH_FORMATS, TRANSCRIPTION_FORMATS } from './audio'

/**
 * An integer in a JSON body. Not t.Integer: Elysia's version also accepts numeric strings through a
 * transform, and a transform makes every request run TypeBox's (uncompiled) decode over the whole body.
 */
const int = (opts: { minimum: number; maximum: number; error: string }) => t.Number({ multipleOf: 1, ...opts })

const content = t.Union([t.String(), t.Array(t.Record(t.String(), t.Any())), t.Null()], {
  error: 'content сообщения должен быть строкой или массивом частей',
})

export const ChatRequest = t.Object(
  {
    // Either may name the model: `models` is the router's fallback list (shape.ts checks at least one is there).
    model: t.Optional(t.String({ minLength: 1, error: 'Укажите model — идентификатор модели из /v1/models' })),
    models: t.Optional(t.Array(t.String({ minLength: 1 }), { minItems: 1, maxItems: 10, error: 'models должен быть массивом из 1–10 идентификаторов моделей' })),
    n: t.Optional(int({ minimum: 1, maximum: 16, error: 'n должен быть целым числом от 1 до 16' })),
    messages: t.Array(
      t.Object(
        {
          role: t.UnionEnum(['system', 'developer', 'user', 'assistant', 'tool'], { error: 'role должен быть system, developer, user, assistant или tool' }),
          content: t.Optional(content),
        },
        { additionalProperties: true },
      ),
      { minItems: 1, error: 'messages должен быть непустым массивом сообщений' },
    ),
    temperature: t.Optional(t.Number({ minimum: 0, maximum: 2, error: 'temperature должен быть числом от 0 до 2' })),
    max_tokens: t.Optional(int({ minimum: 1, maximum: 1_000_000, error: 'max_tokens должен быть целым числом не меньше 1' })),
    max_completion_tokens: t.Optional(int({ minimum: 1, maximum: 1_000_000, error: 'max_completion_tokens должен быть целым числом не меньше 1' })),
    stream: t.Optional(t.Boolean({ error: 'stream должен быть true или false' })),
    stream_options: t.Optional(t.Object({ include_usage: t.Optional(t.Boolean()) }, { additionalProperties: true })),
  },
  // Everything else (tools, response_format, top_p, …) goes to the router untouched.
  { additionalProperties: true, error: 'Тело запроса должно быть объектом с полями model и messages' },
)

export const ImagesRequest = t.Object(
  {
    model: t.String({ minLength: 1, error: 'Укажите model — модель, генерирующую изображения' }),
    prompt: t.String({ minLength: 1, maxLength: 32_000, error: 'Укажите prompt — описание изображения' }),
    n: t.Optional(int({ minimum: 1, maximum: 4, error: 'n должен быть целым числом от 1 до 4' })),
    size: t.Optional(t.String({ pattern: '^\\d{2,4}x\\d{2,4}$', error: 'size должен иметь вид 1024x1024' })),
    quality: t.Optional(t.String()),
    response_format: t.Optional(t.UnionEnum(['url', 'b64_json'], { error: 'response_format должен быть url или b64_json' })),
  },
  { additionalProperties: true, error: 'Тело запроса должно быть объектом с полями model и prompt' },
)

export const OpenAIErrorBody = t.Object(
  {
    error: t.Object({
      message: t.String(),
      type: t.String(),
      code: t.String(),
      param: t.Union([t.String(), t.Null()]),
      action: t.Optional(t.Object({ label: t.String(), url: t.String() })),
    }),
  },
  { title: 'OpenAIError' },
)

/** A route's error responses: OpenAI's error body under each status. */
export const errorsOf = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, OpenAIErrorBody]))

/** GET /v1/responses/{id}/input_items: OpenAI's cursor list. */
export const ResponseItemList = t.Object(
  {
    object: t.Literal('list'),
    data: t.Array(t.Any({ description: 'Элемент входа (message, function_call, function_call_output…) с id' })),
    first_id: t.Union([t.String(), t.Null()]),
    last_id: t.Union([t.String(), t.Null()]),
    has_more: t.Boolean(),
  },
  { title: 'ResponseItemList' },
)

export const ResponseDeleted = t.Object({ id: t.String(), object: t.Literal('response'), deleted: t.Literal(true) }, { title: 'ResponseDeleted' })

export const ModelObject = t.Object(
  {
    id: t.String(),
    object: t.Literal('model'),
    created: t.Number(),
    owned_by: t.String(),
    name: t.String(),
    description: t.String(),
    context_length: t.Number(),
    pricing: t.Object(
      {
        prompt: t.String(),
        completion: t.String(),
        image: t.String(),
        request: t.String(),
        image_output: t.String(),
        web_search: t.String(),
        internal_reasoning: t.String(),
        audio: t.String(),
        character: t.String(),
        audio_second: t.String(),
      },
      {
        description:
          'Рубли с наценкой: prompt/completion/internal_reasoning — за токен, image — за входное изображение, image_output — за созданное изображение, web_search — за результат веб-поиска («0» — по цене маршрутизатора), request — за запрос, audio — за аудиотокен; у моделей озвучки character — за символ текста (prompt — то же), у моделей распознавания с посекундной ценой audio_second — за секунду записи; "-1" — цена переменная',
      },
    ),
    capabilities: t.Object({
      image: t.Boolean({ description: 'Создаёт изображения' }),
      vision: t.Boolean({ description: 'Принимает изображения' }),
      files: t.Boolean({ description: 'Принимает файлы (PDF)' }),
      embeddings: t.Boolean({ description: 'Модель для /v1/embeddings' }),
      speech: t.Boolean({ description: 'Озвучивает текст: /v1/audio/speech' }),
      transcription: t.Boolean({ description: 'Распознаёт речь: /v1/audio/transcriptions' }),
    }),
    type: t.UnionEnum(['chat', 'image', 'embeddings', 'speech', 'transcription'], {
      description: 'Для чего модель: chat — /v1/chat/completions, image — /v1/images, embeddings, speech, transcription — /v1/audio/*',
    }),
    voices: t.Optional(t.Array(t.String(), { description: 'Голоса модели озвучки (voice)' })),
    variable_pricing: t.Boolean(),
    data_residency: t.Array(t.UnionEnum(['ru', 'foreign']), {
      description: 'Где обрабатывают данные провайдеры, которые могут ответить: ["ru"] — только в России (152-ФЗ), ["foreign"] — за рубежом, оба — и там и там',
    }),
  },
  { title: 'Model' },
)

export const SpeechRequest = t.Object(
  {
    model: t.String({ minLength: 1, error: 'Укажите model — модель озвучки из /v1/models (type: speech)' }),
    // The exact limit (4096 characters) is counted in code points by the gateway; this one in UTF-16 units.
    input: t.String({ minLength: 1, maxLength: 8192, error: 'Укажите input — текст до 4096 символов, который нужно озвучить' }),
    voice: t.Optional(
      t.Union([t.String({ minLength: 1, maxLength: 200 }), t.Object({ id: t.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: true })], {
        error: 'voice должен быть названием голоса, например alloy',
      }),
    ),
    response_format: t.Optional(t.UnionEnum([...SPEECH_FORMATS], { error: 'response_format должен быть mp3, opus, aac, flac, wav или pcm' })),
    speed: t.Optional(t.Number({ minimum: 0.25, maximum: 4, error: 'speed должен быть числом от 0.25 до 4' })),
    instructions: t.Optional(t.String({ maxLength: 4096, error: 'instructions должен быть строкой до 4096 символов' })),
    stream_format: t.Optional(t.String()),
  },
  { additionalProperties: true, error: 'Тело запроса должно быть объектом с полями model, input и voice' },
)

export const TranscriptionRequest = t.Object(
  {
    model: t.String({ minLength: 1, error: 'Укажите model — модель распознавания речи из /v1/models (type: transcription)' }),
    file: t.Optional(t.Any({ description: 'Файл записи (multipart/form-data): WAV, MP3, OGG/Opus, WebM, M4A, FLAC или AAC, до 25 МБ' })),
    input_audio: t.Optional(
      t.Object(
        { data: t.String({ minLength: 1, description: 'Запись в base64' }), format: t.Optional(t.String({ description: 'wav, mp3, flac, m4a, ogg, webm или aac' })) },
        { additionalProperties: true, error: 'input_audio должен быть объектом {data: <base64>, format}' },
      ),
    ),
    language: t.Optional(t.String({ maxLength: 32, error: 'language должен быть кодом языка ISO-639-1, например ru' })),
    prompt: t.Optional(t.String({ maxLength: 4096, error: 'prompt должен быть строкой до 4096 символов' })),
    response_format: t.Optional(t.UnionEnum([...TRANSCRIPTION_FORMATS], { error: 'response_format должен быть json, text, srt, verbose_json или vtt' })),
    // Multipart sends every field as text.
    temperature: t.Optional(t.Union([t.Number(), t.String({ maxLength: 16 })], { error: 'temperature должен быть числом от 0 до 1' })),
  },
  { additionalProperties: true, error: 'Передайте model и запись: file (multipart/form-data) или input_audio (JSON)' },
)

export const EstimateRequest = t.Object(
  {
    chat: t.Optional(ChatRequest),
    images: t.Optional(ImagesRequest),
    speech: t.Optional(SpeechRequest),
    transcription: t.Optional(
      t.Object({
        model: t.String({ minLength: 1, error: 'Укажите model — модель распознавания речи' }),
        seconds: t.Number({ exclusiveMinimum: 0, maximum: MAX_AUDIO_SECONDS, error: 'seconds — длительность записи в секундах' }),
      }),
    ),
    compare: t.Optional(
      t.Array(ChatRequest, {
        minItems: 1,
        maxItems: 3,
        error: 'compare — от 1 до 3 тел /v1/chat/completions, отправляемых одновременно (сравнение моделей)',
        description: 'Сравнение: одни и те же сообщения нескольким моделям сразу; оценка — сумма, как будут зарезервированы все запросы вместе',
      }),
    ),
  },
  {
    error:
      'Передайте chat (тело /v1/chat/completions), images (тело /v1/images), speech (тело /v1/audio/speech), transcription ({model, seconds} — модель и длительность записи) или compare (до трёх тел /v1/chat/completions)',
  },
)

export const EstimateResult = t.Object(
  {
    maxCost: t.Union([t.Number(), t.Null()], { description: 'Больше запрос стоить не может, рубли; null — цена модели переменная' }),
    hold: t.Union([t.Number(), t.Null()], { description: 'Сколько будет зарезервировано при текущем балансе, рубли; null — запрос будет отклонён' }),
    maxTokens: t.Union([t.Number(), t.Null()], { description: 'max_tokens, который получит провайдер, если ответ придётся ограничить балансом' }),
    affordable: t.Boolean(),
    message: t.Union([t.String(), t.Null()], { description: 'Почему запрос будет отклонён (402)' }),
    affordableTokens: t.Union([t.Integer(), t.Null()], {
      description:
        'Запрос отклонён из-за max_tokens: столько токенов ответа хватает на то, что можно потратить (тот же запрос с этим max_tokens пройдёт); null — уменьшение ответа не поможет',
    }),
    limitedBy: t.Optional(
      t.Union([t.UnionEnum(['key', 'member', 'team', 'personal']), t.Null()], {
        description: 'Какой уровень отклонит запрос: бюджет ключа, бюджет участника, баланс команды или личный',
      }),
    ),
  },
  { title: 'Estimate' },
)

const optionalModels = t.Optional(t.Array(t.String({ minLength: 1 }), { minItems: 1, maxItems: 10, error: 'models должен быть массивом из 1–10 идентификаторов моделей' }))

export const ResponsesRequest = t.Object(
  {
    model: t.Optional(t.String({ minLength: 1, error: 'Укажите model — идентификатор модели из /v1/models' })),
    models: optionalModels,
    input: t.Union([t.String(), t.Array(t.Any(), { minItems: 1 })], { error: 'input должен быть строкой или непустым массивом элементов' }),
    instructions: t.Optional(t.String({ error: 'instructions должен быть строкой' })),
    tools: t.Optional(t.Array(t.Record(t.String(), t.Any()), { error: 'tools должен быть массивом инструментов' })),
    max_output_tokens: t.Optional(int({ minimum: 1, maximum: 1_000_000, error: 'max_output_tokens должен быть целым числом не меньше 1' })),
    temperature: t.Optional(t.Number({ minimum: 0, maximum: 2, error: 'temperature должен быть числом от 0 до 2' })),
    stream: t.Optional(t.Boolean({ error: 'stream должен быть true или false' })),
    previous_response_id: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    store: t.Optional(t.Boolean({ error: 'store должен быть true или false' })),
    generate: t.Optional(t.Boolean({ error: 'generate должен быть true или false' })),
  },
  { additionalProperties: true, error: 'Тело запроса должно быть объектом с полями model и input' },
)

const anthropicContent = t.Union([t.String(), t.Array(t.Record(t.String(), t.Any()))], { error: 'content должен быть строкой или массивом блоков' })

export const MessagesRequest = t.Object(
  {
    model: t.String({ minLength: 1, error: 'Укажите model — идентификатор модели из /v1/models (например anthropic/claude-sonnet-4.5)' }),
    max_tokens: int({ minimum: 1, maximum: 1_000_000, error: 'max_tokens: обязательное целое число не меньше 1' }),
    messages: t.Array(
      // system: a mid-conversation system message (Claude Code 2.1.x); where it may stand is checked in messages.ts.
      t.Object(
        { role: t.UnionEnum(['user', 'assistant', 'system'], { error: 'role должен быть user, assistant или system' }), content: anthropicContent },
        { additionalProperties: true },
      ),
      {
        minItems: 1,
        error: 'messages должен быть непустым массивом сообщений',
      },
    ),
    system: t.Optional(anthropicContent),
    tools: t.Optional(t.Array(t.Record(t.String(), t.Any()), { error: 'tools должен быть массивом инструментов' })),
    stream: t.Optional(t.Boolean({ error: 'stream должен быть true или false' })),
  },
  { additionalProperties: true, error: 'Тело запроса должно быть объектом с полями model, max_tokens и messages' },
)

export const CountTokensRequest = t.Object(
  {
    model: t.String({ minLength: 1, error: 'Укажите model' }),
    messages: t.Array(t.Record(t.String(), t.Any()), { minItems: 1, error: 'messages должен быть непустым массивом сообщений' }),
  },
  { additionalProperties: true, error: 'Тело запроса должно быть объектом с полями model и messages' },
)

export const EmbeddingsRequest = t.Object(
  {
    model: t.String({ minLength: 1, error: 'Укажите model — модель эмбеддингов из /v1/models' }),
    input: t.Union(
      [
        t.String({ minLength: 1 }),
        t.Array(t.String({ minLength: 1 }), { minItems: 1, maxItems: 2048 }),
        t.Array(t.Number({ multipleOf: 1, minimum: 0 }), { minItems: 1 }),
        t.Array(t.Array(t.Number({ multipleOf: 1, minimum: 0 }), { minItems: 1 }), { minItems: 1, maxItems: 2048 }),
      ],
      { error: 'input должен быть строкой, массивом строк (до 2048) или массивом токенов' },
    ),
    encoding_format: t.Optional(t.UnionEnum(['float', 'base64'], { error: 'encoding_format должен быть float или base64' })),
    dimensions: t.Optional(int({ minimum: 1, maximum: 65_536, error: 'dimensions должен быть целым числом не меньше 1' })),
  },
  { additionalProperties: true, error: 'Тело запроса должно быть объектом с полями model и input' },
)
