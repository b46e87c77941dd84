import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import { envelope, errors, ok } from '../lib/http'
import { Chat, ChatListQuery, ChatMessage, ChatParams, ChatSummary, CreateChatBody, NewMessageBody } from './model'
import type { ChatsService } from './service'

export function chatsRoutes(chats: ChatsService, guard: AuthGuard) {
  return new Elysia({ name: 'chats', prefix: '/api/chats', detail: { tags: ['Чаты Playground'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .get('', async ({ user, query }) => ok(await chats.list(user.id, query.limit)), {
      auth: true,
      query: ChatListQuery,
      response: { 200: envelope(t.Array(ChatSummary)), ...errors(400, 401) },
      detail: { summary: 'Чаты пользователя, последние по активности сверху (limit, по умолчанию 50)' },
    })
    .post('', async ({ user, body, status }) => status(201, ok(await chats.create(user.id, body))), {
      auth: true,
      body: CreateChatBody,
      response: { 201: envelope(Chat), ...errors(400, 401) },
      detail: { summary: 'Новый чат с названием и моделью' },
    })
    .get('/:id', async ({ user, params }) => ok(await chats.get(user.id, params.id)), {
      auth: true,
      params: ChatParams,
      response: { 200: envelope(Chat), ...errors(401, 404) },
      detail: { summary: 'Чат со всеми сообщениями (сообщения с изображениями разобраны из JSON)' },
    })
    .delete(
      '/:id',
      async ({ user, params }) => {
        await chats.remove(user.id, params.id)
        return ok({ ok: true })
      },
      {
        auth: true,
        params: ChatParams,
        response: { 200: envelope(t.Object({ ok: t.Boolean() })), ...errors(401, 404) },
        detail: { summary: 'Удаление чата вместе с сообщениями и вложениями' },
      },
    )
    .delete('/:id/messages/:messageId', async ({ user, params }) => ok(await chats.truncateFrom(user.id, params.id, params.messageId)), {
      auth: true,
      params: t.Object({ id: t.String(), messageId: t.String() }),
      response: { 200: envelope(t.Object({ removed: t.Number() })), ...errors(401, 404) },
      detail: { summary: 'Удаление сообщения и всех следующих за ним (повторная генерация, правка вопроса)' },
    })
    .post('/:id/messages', async ({ user, params, body, status }) => status(201, ok(await chats.addMessage(user.id, params.id, body))), {
      auth: true,
      params: ChatParams,
      body: NewMessageBody,
      response: { 201: envelope(ChatMessage), ...errors(400, 401, 404) },
      detail: { summary: 'Сохранение сообщения пользователя или ответа модели' },
    })
}
