// The article request (prompt + structured-output format), the defensive parser of the answer and
// slugs. The demo upstream recognises the format's name and the `ID модели:` line (upstream/demo/article.ts).

import { isVariable } from '../catalog/pricing'
import type { ModelRow } from '../catalog/schema'

export const ARTICLE_FORMAT = {
  type: 'json_schema',
  json_schema: {
    name: 'blog_article',
    strict: true,
    schema: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        description: { type: 'string' },
        content: { type: 'string' },
        metaTitle: { type: 'string' },
        metaDescription: { type: 'string' },
        keywords: { type: 'array', items: { type: 'string' } },
      },
      required: ['title', 'description', 'content', 'metaTitle', 'metaDescription', 'keywords'],
      additionalProperties: false,
    },
  },
} as const

const SYSTEM_PROMPT = [
  'Ты — редактор технического блога AI Gateway: сервиса, который даёт доступ к сотням AI-моделей через один OpenAI-совместимый API с оплатой в рублях.',
  'Пиши по-русски, живо и по делу. Опирайся только на данные о модели из запроса и не выдумывай характеристики, бенчмарки и даты.',
  'Ответь ОДНИМ JSON-объектом без текста вокруг него, с полями:',
  'title — заголовок до 90 символов; description — 1–2 предложения до 200 символов;',
  'content — статья в Markdown на 500–900 слов: подзаголовки ##, списки, пример запроса к API (curl) и для кого модель подойдёт; без заголовка первого уровня;',
  'metaTitle — до 60 символов; metaDescription — до 160 символов; keywords — 5–8 ключевых слов.',
  'Цены называй только в рублях и только так, как они даны в запросе; не пересчитывай их в доллары.',
  'Не упоминай настройки сервиса, переменные окружения и ключи провайдера: статью читают клиенты.',
  'Пример запроса — по типу модели из строки «Тип»: для генерации изображений POST /v1/images с полем prompt, для эмбеддингов POST /v1/embeddings с полем input, для остальных POST /v1/chat/completions.',
].join('\n')

/** The kind of model an article is about: it decides the example request and how the price is quoted. */
export type ModelKind = 'chat' | 'image' | 'embeddings'

export const modelKind = (m: ModelRow): ModelKind =>
  m.outputModalities.includes('embeddings') ? 'embeddings' : m.outputModalities.includes('image') && !m.outputModalities.includes('text') ? 'image' : 'chat'

const KIND_LABEL: Record<ModelKind, string> = { chat: 'текстовая модель (чат)', image: 'генерация изображений', embeddings: 'эмбеддинги' }

/** The ruble price line the article quotes (what customers pay), or null when no rate is known. */
export type PriceLine = string | null

export function articleMessages(model: ModelRow, apiBase: string, prices: PriceLine) {
  const facts = [
    'Напиши статью для блога о модели из нашего каталога.',
    `ID модели: ${model.id}`,
    `Название: ${model.name}`,
    `Тип: ${KIND_LABEL[modelKind(model)]}`,
    `Описание: ${model.description.replace(/\s+/g, ' ').trim() || 'нет'}`,
    `Контекст: ${model.contextLength} токенов`,
    `Принимает: ${model.inputModalities.join(', ')}`,
    `Выдаёт: ${model.outputModalities.join(', ')}`,
    prices && `Цена в AI Gateway: ${prices}`,
    `Адрес API: ${apiBase}`,
  ].filter(Boolean)
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: facts.join('\n') },
  ]
}

export const coverPrompt = (title: string, modelName: string) =>
  `Обложка для статьи «${title}» о нейросети ${modelName}: современная абстрактная технологичная иллюстрация, ` +
  'мягкий градиент, геометрические формы, без текста, букв и логотипов, горизонтальный формат 16:9.'

export type Article = {
  title: string
  description: string
  content: string
  metaTitle: string
  metaDescription: string
  keywords: string[]
}

export class ArticleParseError extends Error {}

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '')

/** At most `max` characters, cut at a word boundary with an ellipsis. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  if ([...flat].length <= max) return flat
  const cut = [...flat].slice(0, max - 1).join('')
  const space = cut.lastIndexOf(' ')
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,.;:—-]+$/, '')}…`
}

/** The JSON object inside a model's answer: bare, fenced in ``` or surrounded by chatter. */
function extractObject(text: string): Record<string, unknown> {
  const unfenced = text.replace(/^\s*```(?:json)?\s*/i, '').replace(/\s*```\s*$/, '')
  const candidates = [unfenced, text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)]
  for (const c of candidates) {
    try {
      const v = JSON.parse(c) as unknown
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>
    } catch {}
  }
  throw new ArticleParseError('ответ модели не содержит JSON-объекта статьи')
}

/** Plain text of the first paragraph of markdown, for a missing description. */
const firstParagraph = (md: string) =>
  md
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .find((p) => p && !p.startsWith('#') && !p.startsWith('```'))
    ?.replace(/[*_`>#[\]]/g, '') ?? ''

function keywordsOf(v: unknown): string[] {
  const raw = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[,;\n]/) : []
  const seen = new Set<string>()
  const out: string[] = []
  for (const k of raw) {
    const word = str(k).replace(/^#/, '').slice(0, 50)
    if (!word || seen.has(word.toLowerCase())) continue
    seen.add(word.toLowerCase())
    out.push(word)
  }
  return out.slice(0, 10)
}

/** Parses and tidies the model's answer; throws ArticleParseError when no usable article is in it. */
export function parseArticle(text: string): Article {
  const o = extractObject(text)
  const title = clip(str(o.title), 150)
  let content = str(o.content ?? o.body ?? o.markdown)
  if (!title) throw new ArticleParseError('в ответе модели нет заголовка статьи')
  // The page shows the title itself: drop a leading H1 that repeats it.
  content = content.replace(/^#\s+[^\n]*\n+/, '').trim()
  if (content.length < 200) throw new ArticleParseError('текст статьи слишком короткий или отсутствует')
  const description = clip(str(o.description) || firstParagraph(content), 300)
  return {
    title,
    description,
    content,
    metaTitle: clip(str(o.metaTitle ?? o.meta_title) || title, 70),
    metaDescription: clip(str(o.metaDescription ?? o.meta_description) || description, 170),
    keywords: keywordsOf(o.keywords),
  }
}

const TRANSLIT: Record<string, string> = {
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  д: 'd',
  е: 'e',
  ё: 'e',
  ж: 'zh',
  з: 'z',
  и: 'i',
  й: 'y',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ф: 'f',
  х: 'kh',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'shch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'yu',
  я: 'ya',
}

export const SLUG_MAX = 80

/** 'GPT-4o: возможности модели' → 'gpt-4o-vozmozhnosti-modeli' (Latin kept, Cyrillic transliterated). */
export function slugify(text: string): string {
  const latin = [...text.toLowerCase()].map((ch) => TRANSLIT[ch] ?? ch).join('')
  let slug = latin
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  if (slug.length > SLUG_MAX) slug = slug.slice(0, SLUG_MAX).replace(/-[^-]*$/, '') || slug.slice(0, SLUG_MAX)
  return slug || 'statya'
}

/** The first of slug, slug-2, slug-3… that `taken` says is free. */
export function uniqueSlug(base: string, taken: (slug: string) => boolean): string {
  if (!taken(base)) return base
  for (let n = 2; ; n++) {
    const candidate = `${base.slice(0, SLUG_MAX - String(n).length - 1)}-${n}`
    if (!taken(candidate)) return candidate
  }
}

/** Router pseudo-models ("price varies") are not real models to write about. */
export const isWritable = (m: ModelRow) => ![m.promptUsd, m.completionUsd].some(isVariable)
