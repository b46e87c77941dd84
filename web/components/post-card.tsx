import { Link } from 'wouter'
import { formatDate, formatInteger } from '../../src/content/format'
import type { BlogPost } from '../../src/wire'
import { EyeIcon } from './icons'

/** What a card shows of a published article (GET /api/blog/posts); the blog and the landing list them. */
export type PostSummary = Pick<BlogPost, 'id' | 'slug' | 'title' | 'description' | 'coverImage' | 'modelName' | 'views' | 'publishedAt'>

/** Where an article has no cover: the model's name on the brand gradient, so cards stay even. */
export function CoverPlaceholder({ modelName }: { modelName: string }) {
  const i = modelName.indexOf(': ')
  const [provider, model] = i > 0 ? [modelName.slice(0, i), modelName.slice(i + 2)] : ['', modelName]
  return (
    <div aria-hidden="true" className="flex h-full w-full flex-col justify-end bg-linear-to-br from-indigo-600 via-indigo-500 to-violet-500 p-5 text-white">
      {provider && <span className="text-xs font-medium text-indigo-100">{provider}</span>}
      <span className="mt-1 line-clamp-2 text-xl leading-tight font-semibold">{model}</span>
    </div>
  )
}

/** A post in a list: cover, model, title (the link), description, date and views. */
export function PostCard({ post, headingLevel = 2 }: { post: PostSummary; headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3'
  return (
    <article className="group relative flex w-full min-w-0 flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-xs transition-shadow focus-within:ring-2 focus-within:ring-indigo-500 hover:shadow-md">
      <div className="aspect-[16/9] overflow-hidden bg-slate-100">
        {post.coverImage ? (
          <img src={post.coverImage} alt="" loading="lazy" decoding="async" className="h-full w-full object-cover transition-transform duration-300 group-hover:scale-[1.02]" />
        ) : (
          <CoverPlaceholder modelName={post.modelName} />
        )}
      </div>
      <div className="flex flex-1 flex-col p-5">
        <p className="truncate text-xs font-medium text-indigo-700" title={post.modelName}>
          {post.modelName}
        </p>
        <Heading className="mt-2 text-lg leading-snug font-semibold text-slate-900">
          <Link href={`/blog/${post.slug}`} className="outline-none after:absolute after:inset-0 after:content-['']">
            {post.title}
          </Link>
        </Heading>
        <p className="mt-2 line-clamp-3 text-[15px] leading-6 text-slate-600">{post.description}</p>
        <div className="mt-auto flex items-center justify-between gap-3 pt-4 text-sm text-slate-500">
          <time dateTime={post.publishedAt ?? undefined}>{formatDate(post.publishedAt)}</time>
          <span className="inline-flex items-center gap-1.5">
            <EyeIcon size={15} />
            <span className="sr-only">Просмотров: </span>
            {formatInteger(post.views)}
          </span>
        </div>
      </div>
    </article>
  )
}
