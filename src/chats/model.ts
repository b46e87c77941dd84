import { t } from 'elysia'
import { Upload } from '../uploads/model'
import { CHAT_MESSAGES } from './service'

export const ChatSummary = t.Object(
  {
    id: t.String(),
    title: t.String(),
    model: t.String({ description: 'Идентификатор модели из каталога' }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time', description: 'Время последнего сообщения; список отсортирован по нему' }),
  },
  { title: 'ChatSummary' },
)

export const ChatMessage = t.Object(
  {
    id: t.String(),
    role: t.UnionEnum(['user', 'assistant']),
    type: t.UnionEnum(['text', 'image-message'], { description: 'image-message — сообщение с картинками (хранится JSON-строкой)' }),
    content: t.String({ description: 'Текст сообщения (для image-message — его поле text)' }),
    images: t.Array(t.String(), { description: 'Ссылки на изображения (подписываются заново при каждом чтении)' }),
    files: t.Array(Upload),
    metadata: t.Record(t.String(), t.Any(), { description: 'Модель, размер, качество, количество изображений; стоимость ответа' }),
    createdAt: t.String({ format: 'date-time' }),
  },
  { title: 'ChatMessage' },
)

export const Chat = t.Composite([ChatSummary, t.Object({ messages: t.Array(ChatMessage) })], { title: 'Chat' })

export const CreateChatBody = t.Object(
  {
    title: t.String({ error: CHAT_MESSAGES.title }),
    model: t.String({ error: CHAT_MESSAGES.model }),
  },
  { error: 'Укажите название и модель чата' },
)

// Loosely typed on purpose: Elysia's coercion would otherwise invent a role for a body without one
// or turn a string into an object; the service checks these fields and answers in Russian.
export const NewMessageBody = t.Object(
  {
    role: t.String({ error: CHAT_MESSAGES.role, description: 'user или assistant' }),
    content: t.String({
      error: CHAT_MESSAGES.content,
      description: 'Текст, или JSON-строка {"type":"image-message","text","images":[url…],"metadata":{model,size,quality,quantity}}',
    }),
    files: t.Optional(t.Unknown({ description: 'Вложения из POST /api/upload: массив {id} или {url} (не более 10)' })),
    metadata: t.Optional(t.Unknown({ description: 'Объект до 4 КБ: модель, стоимость, токены ответа' })),
  },
  { error: 'Тело запроса должно быть объектом с полями role и content' },
)

export const ChatParams = t.Object({ id: t.String() })
export const ChatListQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, error: 'limit должен быть целым числом от 1 до 100' })),
})
