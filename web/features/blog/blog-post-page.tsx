import { useEffect, useRef, useState } from 'react'
import { Link } from 'wouter'
import { formatInteger, formatLongDate } from '../../../src/content/format'
import { publicModelHref } from '../../../src/content/models/links'
import { postMeta } from '../../../src/content/seo'
import { ButtonLink } from '../../components/button'
import { ArrowLeftIcon, ChatIcon, CubeIcon, EyeIcon, FileTextIcon } from '../../components/icons'
import { LoadError } from '../../components/list-state'
import { PageSpinner } from '../../components/spinner'
import { ApiError, errorMessage } from '../../lib/api'
import { siteOrigin, usePageMeta } from '../../lib/head'
import { countView, usePost } from './blog-api'
import { MarkdownBody } from './markdown-body'

/** A query value with the model id's '/' and ':' left readable (both are allowed in a query). */
const queryValue = (value: string) => encodeURIComponent(value).replace(/%2F/gi, '/').replace(/%3A/gi, ':')

/** 'OpenAI: GPT-4o' → 'GPT-4o' */
const shortModelName = (name: string) => (name.includes(': ') ? name.slice(name.indexOf(': ') + 2) : name)

function BackLink() {
  return (
    <Link href="/blog" className="inline-flex items-center gap-1.5 rounded text-sm font-medium text-slate-600 hover:text-slate-900">
      <ArrowLeftIcon size={15} />
      Все статьи
    </Link>
  )
}

function NotFound() {
  usePageMeta({ title: 'Статья не найдена — AI Gateway', description: 'Такой статьи нет или она снята с публикации.', path: '/blog', noindex: true })
  return (
    <div className="mx-auto flex w-full max-w-xl flex-col items-center px-4 py-20 text-center sm:px-6">
      <span className="flex h-12 w-12 items-center justify-center rounded-2xl bg-slate-100 text-slate-500">
        <FileTextIcon size={22} />
      </span>
      <h1 className="mt-4 text-2xl font-semibold tracking-tight text-slate-900">Статья не найдена</h1>
      <p className="mt-2 text-[15px] text-slate-600">Возможно, адрес изменился или статья снята с публикации.</p>
      <ButtonLink href="/blog" variant="secondary" className="mt-6">
        <ArrowLeftIcon size={15} />
        Вернуться к блогу
      </ButtonLink>
    </div>
  )
}

/** /blog/{slug}: one article; each opening counts one view. */
export function BlogPostPage({ slug }: { slug: string }) {
  const { data: post, error, isLoading, isValidating, mutate } = usePost(slug)
  const [counted, setCounted] = useState<number | null>(null)

  // One view per opening: the page is keyed by slug, and the ref survives StrictMode's re-run.
  const sent = useRef(false)
  useEffect(() => {
    if (sent.current) return
    sent.current = true
    void countView(slug).then((views) => {
      if (views !== null) setCounted(views)
    })
  }, [slug])

  usePageMeta(post ? postMeta(post, siteOrigin) : null)

  if (isLoading) return <PageSpinner label="Загрузка статьи…" />
  if (error instanceof ApiError && error.status === 404) return <NotFound />
  if (error || !post)
    return (
      <div className="mx-auto w-full max-w-3xl px-4 py-14 sm:px-6">
        <BackLink />
        <LoadError message={errorMessage(error, 'Не удалось загрузить статью')} retrying={isValidating} onRetry={() => void mutate()} />
      </div>
    )

  const views = Math.max(post.views, counted ?? 0)
  return (
    <article className="mx-auto w-full max-w-3xl px-4 py-10 sm:px-6 sm:py-14">
      <BackLink />
      <header className="mt-6">
        <div className="flex flex-wrap items-center gap-2">
          <span className="inline-flex items-center rounded-full bg-indigo-50 px-2.5 py-1 text-xs font-semibold text-indigo-700 ring-1 ring-indigo-200 ring-inset">
            Обзор модели
          </span>
          <span className="min-w-0 truncate text-sm font-medium text-slate-600">{post.modelName}</span>
        </div>
        <h1 className="mt-4 text-[28px] leading-tight font-semibold tracking-tight break-words text-slate-900 sm:text-4xl">{post.title}</h1>
        <p className="mt-4 text-lg leading-8 text-slate-600">{post.description}</p>
        <div className="mt-5 flex flex-wrap items-center gap-x-5 gap-y-2 border-b border-slate-200 pb-6 text-sm text-slate-500">
          <time dateTime={post.publishedAt ?? undefined}>{formatLongDate(post.publishedAt)}</time>
          <span className="inline-flex items-center gap-1.5" data-testid="post-views">
            <EyeIcon size={15} />
            <span className="sr-only">Просмотров: </span>
            {formatInteger(views)}
          </span>
        </div>
      </header>
      {post.coverImage && (
        <img src={post.coverImage} alt={`Обложка статьи «${post.title}»`} className="mt-8 aspect-[16/9] w-full rounded-2xl border border-slate-200 bg-slate-100 object-cover" />
      )}
      <div className="mt-8">
        <MarkdownBody source={post.content} />
      </div>
      <aside aria-label="Попробовать модель" className="mt-12 rounded-2xl border border-indigo-100 bg-indigo-50/70 p-6">
        <h2 className="text-lg font-semibold text-slate-900">Попробуйте {shortModelName(post.modelName)}</h2>
        <p className="mt-1.5 text-[15px] text-slate-600">Задайте модели свой вопрос в Playground или сравните цены в каталоге.</p>
        <div className="mt-5 flex flex-col gap-3 sm:flex-row">
          <ButtonLink href={`/app/playground?model=${queryValue(post.modelId)}`}>
            <ChatIcon size={16} />
            Открыть в Playground
          </ButtonLink>
          <ButtonLink href={publicModelHref(post.modelId)} variant="secondary">
            <CubeIcon size={16} />
            Найти в каталоге
          </ButtonLink>
        </div>
      </aside>
      {post.keywords.length > 0 && (
        <ul aria-label="Теги" className="mt-8 flex flex-wrap gap-2">
          {post.keywords.map((keyword) => (
            <li key={keyword} className="rounded-full bg-slate-100 px-3 py-1 text-sm text-slate-600">
              #{keyword}
            </li>
          ))}
        </ul>
      )}
    </article>
  )
}
