import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import { envelope, errors, ok } from '../lib/http'
import { Chat, ChatListQuery, ChatMessage, ChatParams, ChatSummary, CreateChatBody, NewMessageBody } from './model'
import type { ChatsService } from './service'

export function chatsRoutes(chats: ChatsService, guard: AuthGuard) {
  return new Elysia({ name: 'chats', prefix: '/api/chats', detail: { tags: ['Чаты Playground'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .get('', async ({ acting, query }) => ok(await chats.list(acting, query.limit)), {
      account: 'playground',
      query: ChatListQuery,
      response: { 200: envelope(t.Array(ChatSummary)), ...errors(400, 401) },
      detail: { summary: 'Чаты пользователя, последние по активности сверху (limit, по умолчанию 50)' },
    })
    .post('', async ({ acting, body, status }) => status(201, ok(await chats.create(acting, body))), {
      account: 'playground',
      body: CreateChatBody,
      response: { 201: envelope(Chat), ...errors(400, 401) },
      detail: { summary: 'Новый чат с названием и моделью' },
    })
    .get('/:id', async ({ acting, params }) => ok(await chats.get(acting, params.id)), {
      account: 'playground',
      params: ChatParams,
      response: { 200: envelope(Chat), ...errors(401, 404) },
      detail: { summary: 'Чат со всеми сообщениями (сообщения с изображениями разобраны из JSON)' },
    })
    .delete(
      '/:id',
      async ({ acting, params }) => {
        await chats.remove(acting, params.id)
        return ok({ ok: true })
      },
      {
        account: 'playground',
        params: ChatParams,
        response: { 200: envelope(t.Object({ ok: t.Boolean() })), ...errors(401, 404) },
        detail: { summary: 'Удаление чата вместе с сообщениями и вложениями' },
      },
    )
    .delete('/:id/messages/:messageId', async ({ acting, params }) => ok(await chats.truncateFrom(acting, params.id, params.messageId)), {
      account: 'playground',
      params: t.Object({ id: t.String(), messageId: t.String() }),
      response: { 200: envelope(t.Object({ removed: t.Number() })), ...errors(401, 404) },
      detail: { summary: 'Удаление сообщения и всех следующих за ним (повторная генерация, правка вопроса)' },
    })
    .post('/:id/messages', async ({ acting, params, body, status }) => status(201, ok(await chats.addMessage(acting, params.id, body))), {
      account: 'playground',
      params: ChatParams,
      body: NewMessageBody,
      response: { 201: envelope(ChatMessage), ...errors(400, 401, 404) },
      detail: { summary: 'Сохранение сообщения пользователя или ответа модели' },
    })
}
