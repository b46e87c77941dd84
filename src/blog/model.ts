import { t } from 'elysia'
import { AUTOPOST_RUN_STATUSES } from './schema'

const isoOrNull = t.Union([t.String({ format: 'date-time' }), t.Null()])

export const BlogPost = t.Object(
  {
    id: t.String(),
    slug: t.String(),
    title: t.String(),
    description: t.String(),
    content: t.String({ description: 'Текст статьи в Markdown' }),
    coverImage: t.Union([t.String({ description: 'Путь к обложке на этом сайте, /blog-images/…' }), t.Null()]),
    metaTitle: t.String(),
    metaDescription: t.String(),
    keywords: t.Array(t.String()),
    modelName: t.String(),
    modelId: t.String(),
    views: t.Integer(),
    publishedAt: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'null — черновик, не показывается публично' }),
  },
  { title: 'BlogPost' },
)

export const AdminBlogPost = t.Composite([BlogPost, t.Object({ createdAt: t.String({ format: 'date-time' }), updatedAt: t.String({ format: 'date-time' }) })], {
  title: 'AdminBlogPost',
})

export const PostsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, error: 'limit должен быть целым числом от 1 до 100' })),
})

export const SlugParams = t.Object({ slug: t.String({ maxLength: 200, error: 'Статья не найдена' }) })
export const IdParams = t.Object({ id: t.String({ maxLength: 64, error: 'Статья не найдена' }) })

export const Views = t.Object({
  views: t.Integer(),
  counted: t.Boolean({ description: 'false — просмотр с этого адреса уже учтён недавно' }),
})

export const AutopostSettings = t.Object(
  {
    isEnabled: t.Boolean(),
    startTime: t.String({ description: 'ЧЧ:ММ, московское время' }),
    intervalHours: t.Integer({ description: '1, 2, 3, 6, 12 или 24' }),
  },
  { title: 'AutopostSettings' },
)

// Any JSON is accepted so a wrong value gets the service's Russian message, not a schema dump.
export const AutopostSettingsPatch = t.Object(
  {
    isEnabled: t.Optional(t.Any({ description: 'true/false — включить или остановить публикацию' })),
    startTime: t.Optional(t.Any({ description: 'ЧЧ:ММ, московское время', examples: ['10:00'] })),
    intervalHours: t.Optional(t.Any({ description: '1, 2, 3, 6, 12 или 24', examples: [6] })),
  },
  { error: 'Передайте isEnabled или startTime и intervalHours' },
)

export const AutopostStats = t.Object(
  {
    totalPosts: t.Integer(),
    publishedPosts: t.Integer(),
    lastRunTime: isoOrNull,
    nextRunTime: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'null — публикация остановлена' }),
    lastRun: t.Union([
      t.Object({
        status: t.UnionEnum([...AUTOPOST_RUN_STATUSES]),
        modelId: t.Union([t.String(), t.Null()]),
        postId: t.Union([t.String(), t.Null()]),
        error: t.Union([t.String(), t.Null()]),
        finishedAt: isoOrNull,
      }),
      t.Null(),
    ]),
  },
  { title: 'AutopostStats' },
)
