import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../auth/guard'
import type { Config } from '../config'
import { clientIp, envelope, errors, ok } from '../lib/http'
import type { AutopostService } from './autopost'
import { AdminBlogPost, AutopostSettings, AutopostSettingsPatch, AutopostStats, BlogPost, IdParams, PostsQuery, SlugParams, Views } from './model'
import type { BlogService } from './service'

/** The public read API of the blog (the /blog pages and the landing teaser use it). */
export function blogRoutes(config: Config, blog: BlogService) {
  return new Elysia({ name: 'blog', prefix: '/api/blog', detail: { tags: ['Блог'] } })
    .get('/posts', async ({ query }) => ok(await blog.list(query.limit ?? 20)), {
      query: PostsQuery,
      response: { 200: envelope(t.Array(BlogPost)), ...errors(400) },
      detail: { summary: 'Опубликованные статьи, новые сверху' },
    })
    .get('/posts/:slug', async ({ params }) => ok(await blog.bySlug(params.slug)), {
      params: SlugParams,
      response: { 200: envelope(BlogPost), ...errors(404) },
      detail: { summary: 'Одна опубликованная статья по адресу (slug)' },
    })
    .post('/posts/:slug/view', async ({ params, request, server }) => ok(await blog.view(params.slug, clientIp(request, server, config.trustProxy))), {
      params: SlugParams,
      response: { 200: envelope(Views), ...errors(404) },
      detail: { summary: 'Учёт просмотра статьи (не чаще раза в 30 минут с одного адреса)' },
    })
}

/** The autopost admin: every route behind the server-side admin check. */
export function blogAdminRoutes(blog: BlogService, autopost: AutopostService, guard: AuthGuard) {
  return new Elysia({ name: 'blog-admin', prefix: '/api/blog/admin', detail: { tags: ['Администрирование'], security: [{ bearerAuth: [] }] } })
    .use(guard)
    .get('/autopost/settings', async () => ok(await autopost.settings()), {
      admin: true,
      response: { 200: envelope(AutopostSettings), ...errors(401, 403) },
      detail: { summary: 'Расписание автопубликации статей' },
    })
    .patch('/autopost/settings', async ({ body }) => ok(await autopost.updateSettings(body)), {
      admin: true,
      body: AutopostSettingsPatch,
      response: { 200: envelope(AutopostSettings), ...errors(400, 401, 403) },
      detail: { summary: 'Включить/остановить автопубликацию ({isEnabled}) или изменить расписание ({startTime, intervalHours})' },
    })
    .get('/autopost/stats', async () => ok(await autopost.stats()), {
      admin: true,
      response: { 200: envelope(AutopostStats), ...errors(401, 403) },
      detail: { summary: 'Статьи, последний и следующий запуск автопубликации' },
    })
    .post('/autopost/run', async () => ok(await autopost.runNow()), {
      admin: true,
      response: { 200: envelope(BlogPost), ...errors(401, 403, 409, 502) },
      detail: { summary: 'Написать и опубликовать статью сейчас, вне расписания' },
    })
    .get('/posts', async () => ok(await blog.adminList()), {
      admin: true,
      response: { 200: envelope(t.Array(AdminBlogPost)), ...errors(401, 403) },
      detail: { summary: 'Все статьи, включая черновики, новые сверху' },
    })
    .delete(
      '/posts/:id',
      async ({ params }) => {
        await autopost.removePost(params.id)
        return ok({ ok: true })
      },
      {
        admin: true,
        params: IdParams,
        response: { 200: envelope(t.Object({ ok: t.Boolean() })), ...errors(401, 403, 404) },
        detail: { summary: 'Удаление статьи вместе с обложкой' },
      },
    )
    .post('/posts/:id/regenerate-image', async ({ params }) => ok(await autopost.regenerateCover(params.id)), {
      admin: true,
      params: IdParams,
      response: { 200: envelope(BlogPost), ...errors(401, 403, 404, 502) },
      detail: { summary: 'Новая обложка статьи (старая удаляется; при ошибке остаётся прежняя)' },
    })
}

/** Covers are public, like the articles; names are unguessable and files never change, so they cache for good. */
export function blogImageRoutes(autopost: AutopostService) {
  return new Elysia({ name: 'blog-images' }).get(
    '/blog-images/:name',
    async ({ params }) => {
      const found = await autopost.covers.open(params.name)
      if (!found) return new Response('Не найдено', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } })
      return new Response(found.file, {
        headers: { 'content-type': found.type, 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' },
      })
    },
    { params: t.Object({ name: t.String() }), detail: { hide: true, summary: 'Обложка статьи' } },
  )
}
