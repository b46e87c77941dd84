import { ButtonLink } from '../../components/button'
import { FileTextIcon } from '../../components/icons'
import { LoadError } from '../../components/list-state'
import { PostCard } from '../../components/post-card'
import { PageSpinner } from '../../components/spinner'
import { errorMessage } from '../../lib/api'
import { usePosts } from './blog-api'

export const BLOG_PAGE_SIZE = 100

/** /blog: every published article, newest first. */
export function BlogListPage() {
  const { data, error, isLoading, isValidating, mutate } = usePosts(BLOG_PAGE_SIZE)
  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-10 sm:px-6 sm:py-14">
      <div className="max-w-3xl">
        <p className="text-sm font-medium text-indigo-700">Блог</p>
        <h1 className="mt-2 text-2xl leading-tight font-semibold tracking-tight break-words text-slate-900 min-[400px]:text-[28px] sm:text-4xl">Статьи о новых AI-моделях</h1>
        <p className="mt-3 text-[17px] leading-7 text-slate-600">Что умеют новые модели, где они полезны и сколько стоят в рублях. Каждую можно сразу попробовать в Playground.</p>
      </div>
      <div className="mt-10">
        {isLoading ? (
          <PageSpinner label="Загрузка статей…" />
        ) : error && !data ? (
          <LoadError message={errorMessage(error, 'Не удалось загрузить статьи')} retrying={isValidating} onRetry={() => void mutate()} />
        ) : !data || data.length === 0 ? (
          <div className="flex flex-col items-center rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-14 text-center">
            <span className="flex h-12 w-12 items-center justify-center rounded-2xl bg-indigo-50 text-indigo-600">
              <FileTextIcon size={22} />
            </span>
            <h2 className="mt-4 text-lg font-semibold text-slate-900">Статей пока нет</h2>
            <p className="mt-1.5 max-w-md text-[15px] text-slate-600">
              Скоро здесь появятся обзоры новых моделей. А пока загляните в каталог — там больше сотни моделей с ценами в рублях.
            </p>
            <ButtonLink href="/models" variant="secondary" className="mt-5">
              Смотреть каталог
            </ButtonLink>
          </div>
        ) : (
          <ul className="grid gap-5 sm:grid-cols-2 lg:grid-cols-3">
            {data.map((post) => (
              <li key={post.id} className="flex">
                <PostCard post={post} />
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  )
}
