import { type ReactNode, useEffect } from 'react'
import { Link } from 'wouter'
import { AUDIENCE, FEATURES, HERO, PRODUCT_CARDS, type TextCard, USE_CASES } from '../../../src/content/landing'
import { publicModelHref } from '../../../src/content/models/links'
import { pickShowcase, SHOWCASE_SIZE, type ShowcaseModel, splitModelName } from '../../../src/content/showcase'
import { ButtonLink } from '../../components/button'
import { ArrowRightIcon, CheckIcon } from '../../components/icons'
import { PostCard, type PostSummary } from '../../components/post-card'
import { InlineText } from '../../components/rich-document'
import { usePublicJson } from '../../lib/public-json'
import { CardIcon } from './landing-icons'

/** The landing's teaser: the spec asks GET /api/blog/posts with limit 3. */
const LATEST_POSTS_KEY = '/api/blog/posts?limit=3'

const snippet = (origin: string) => `from openai import OpenAI

client = OpenAI(
    base_url="${origin}/v1",
    api_key="ВАШ_API_КЛЮЧ",
)

reply = client.chat.completions.create(
    model="openai/gpt-4o-mini",
    messages=[{"role": "user", "content": "Привет!"}],
)
print(reply.choices[0].message.content)`

/** `text` with `word` kept on one line (a hyphenated word must not break at its hyphen). */
function NoBreak({ text, word }: { text: string; word: string }) {
  const at = text.indexOf(word)
  if (at < 0) return <>{text}</>
  return (
    <>
      {text.slice(0, at)}
      <span className="whitespace-nowrap">{word}</span>
      {text.slice(at + word.length)}
    </>
  )
}

function SectionHeading({ eyebrow, title, lead, id }: { eyebrow: string; title: string; lead?: ReactNode; id: string }) {
  return (
    <div className="max-w-2xl">
      <p className="text-sm font-semibold text-indigo-700">{eyebrow}</p>
      <h2 id={id} className="mt-2 text-2xl font-semibold tracking-tight text-balance text-slate-900 sm:text-3xl">
        {title}
      </h2>
      {lead && <p className="mt-3 text-[17px] leading-7 text-slate-600">{lead}</p>}
    </div>
  )
}

function Card({ card, compact = false }: { card: TextCard; compact?: boolean }) {
  return (
    <div className="h-full rounded-2xl border border-slate-200 bg-white p-6 shadow-xs">
      <span className="flex h-10 w-10 items-center justify-center rounded-xl bg-indigo-50 text-indigo-600">
        <CardIcon name={card.icon} />
      </span>
      <h3 className={compact ? 'mt-4 text-[15px] font-semibold text-slate-900' : 'mt-4 text-base font-semibold text-slate-900'}>{card.title}</h3>
      <p className="mt-2 text-[15px] leading-6 text-slate-600">
        <InlineText text={card.text} />
      </p>
    </div>
  )
}

function Hero() {
  return (
    <section
      aria-labelledby="hero-title"
      className="relative overflow-hidden border-b border-slate-200/70 bg-[radial-gradient(ellipse_70%_60%_at_50%_-20%,rgb(99_102_241/0.14),transparent)]"
    >
      <div className="mx-auto grid max-w-6xl items-center gap-12 px-4 py-14 sm:px-6 sm:py-24 lg:grid-cols-[1.15fr_1fr]">
        <div className="min-w-0">
          <p className="inline-flex items-center gap-2 rounded-full border border-indigo-200 bg-white px-3 py-1 text-xs font-medium text-indigo-700 shadow-xs">
            <span className="h-1.5 w-1.5 rounded-full bg-indigo-500" />
            {HERO.badge}
          </p>
          <h1 id="hero-title" className="mt-5 text-[34px] leading-[1.1] font-semibold tracking-tight text-balance text-slate-900 sm:text-5xl">
            <NoBreak text={HERO.title} word="AI-моделям" />
          </h1>
          <p className="mt-5 max-w-xl text-lg leading-8 text-slate-600">{HERO.lead}</p>
          <div className="mt-8 flex flex-col gap-3 sm:flex-row">
            <ButtonLink href="/register" size="lg">
              Попробовать бесплатно
              <ArrowRightIcon size={16} />
            </ButtonLink>
            <ButtonLink href="/app/playground" variant="secondary" size="lg">
              Открыть Playground
            </ButtonLink>
          </div>
          <ul className="mt-6 flex flex-col gap-2 text-sm text-slate-600 sm:flex-row sm:flex-wrap sm:gap-x-5">
            {HERO.facts.map((fact) => (
              <li key={fact} className="inline-flex items-center gap-1.5">
                <CheckIcon size={15} className="text-emerald-600" />
                {fact}
              </li>
            ))}
          </ul>
        </div>
        <div className="min-w-0 overflow-hidden rounded-2xl border border-slate-800 bg-slate-900 shadow-2xl shadow-indigo-900/20">
          <div className="flex items-center gap-1.5 border-b border-white/10 px-4 py-3">
            <span className="h-2.5 w-2.5 rounded-full bg-slate-700" />
            <span className="h-2.5 w-2.5 rounded-full bg-slate-700" />
            <span className="h-2.5 w-2.5 rounded-full bg-slate-700" />
            <span className="ml-2 text-xs text-slate-400">main.py</span>
          </div>
          {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: a focusable scroll container (axe scrollable-region-focusable) named for the keyboard stop; kept as it is (axe-clean) */}
          <pre className="overflow-x-auto p-5 font-mono text-[13px] leading-6 text-slate-100" tabIndex={0} aria-label="Пример запроса на Python">
            <code>{snippet(window.location.origin)}</code>
          </pre>
        </div>
      </div>
    </section>
  )
}

function Features() {
  return (
    <section id="features" aria-labelledby="features-title" className="scroll-mt-20 mx-auto w-full max-w-6xl px-4 py-16 sm:px-6 sm:py-20">
      <SectionHeading
        id="features-title"
        eyebrow="Возможности"
        title="Всё для работы с AI в одном месте"
        lead="Один аккаунт, один баланс и один API для текстовых и графических моделей."
      />
      <ul className="mt-10 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {FEATURES.map((card) => (
          <li key={card.title}>
            <Card card={card} compact />
          </li>
        ))}
      </ul>
    </section>
  )
}

function Audience() {
  return (
    <section id="audience" aria-labelledby="audience-title" className="scroll-mt-20 border-y border-slate-200/70 bg-slate-50">
      <div className="mx-auto w-full max-w-6xl px-4 py-16 sm:px-6 sm:py-20">
        <SectionHeading id="audience-title" eyebrow="Для кого" title="Для тех, кто работает с AI каждый день" />
        <ul className="mt-10 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {AUDIENCE.map((card) => (
            <li key={card.title}>
              <Card card={card} />
            </li>
          ))}
        </ul>
      </div>
    </section>
  )
}

/** The nine models the server put into the page (see src/spa); null when absent. */
const embeddedShowcase: ShowcaseModel[] | null = (() => {
  try {
    const parsed = JSON.parse(document.getElementById('showcase-data')?.textContent ?? 'null') as unknown
    return Array.isArray(parsed) && parsed.length > 0 ? (parsed as ShowcaseModel[]) : null
  } catch {
    return null
  }
})()

function ModelsTeaser() {
  // Without the server's list (an old page, a dev server), the catalogue API gives the same pick.
  // (prices come with the server's list only: the catalogue's price code stays out of the landing's bundle)
  const { data, error, isLoading } = usePublicJson<{ data: ShowcaseModel[] }>(embeddedShowcase ? null : '/v1/models')
  const models: ShowcaseModel[] = embeddedShowcase ?? (data?.data ? pickShowcase(data.data).map(({ id, name }) => ({ id, name })) : [])
  return (
    <section id="models" aria-labelledby="models-title" className="scroll-mt-20 mx-auto w-full max-w-6xl px-4 py-16 sm:px-6 sm:py-20">
      <div className="flex flex-col gap-6 md:flex-row md:items-end md:justify-between">
        <SectionHeading
          id="models-title"
          eyebrow="Модели"
          title="Каталог из 300+ моделей"
          lead="Текстовые, мультимодальные и графические модели ведущих провайдеров — с ценами в рублях. Вот некоторые из них:"
        />
        <ButtonLink href="/models" variant="secondary" className="self-start md:self-auto">
          Смотреть каталог
          <ArrowRightIcon size={16} />
        </ButtonLink>
      </div>
      {isLoading ? (
        <ul className="mt-10 grid gap-3 sm:grid-cols-2 lg:grid-cols-3" aria-hidden="true">
          {Array.from({ length: SHOWCASE_SIZE }, (_, i) => (
            <li key={i} className="h-[92px] animate-pulse rounded-xl border border-slate-200 bg-slate-50" />
          ))}
        </ul>
      ) : error || models.length === 0 ? (
        <p className="mt-10 text-[15px] text-slate-600">
          Полный список моделей с ценами — в{' '}
          <Link href="/models" className="font-medium text-indigo-700 underline underline-offset-2">
            каталоге
          </Link>
          .
        </p>
      ) : (
        <ul className="mt-10 grid gap-3 sm:grid-cols-2 lg:grid-cols-3" data-testid="showcase-models">
          {models.map((m) => {
            const { provider, model } = splitModelName(m.name)
            return (
              <li key={m.id} className="min-w-0">
                <Link
                  href={publicModelHref(m.id)}
                  className="flex min-w-0 items-center justify-between gap-3 rounded-xl border border-slate-200 bg-white px-4 py-3 shadow-xs transition-colors hover:border-indigo-300 hover:bg-indigo-50/40"
                >
                  <span className="min-w-0">
                    <span className="block truncate font-medium text-slate-900">{model}</span>
                    <span className="block truncate text-xs text-slate-500">{provider ? `${provider} · ${m.id}` : m.id}</span>
                    {m.price && (
                      <span data-testid="showcase-price" className="mt-0.5 block truncate text-xs font-medium text-slate-700 tabular-nums">
                        {m.price}
                      </span>
                    )}
                  </span>
                  <ArrowRightIcon size={15} className="shrink-0 text-slate-400" />
                </Link>
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}

function UseCases() {
  return (
    <section id="use-cases" aria-labelledby="use-cases-title" className="scroll-mt-20 border-y border-slate-200/70 bg-slate-50">
      <div className="mx-auto w-full max-w-6xl px-4 py-16 sm:px-6 sm:py-20">
        <SectionHeading id="use-cases-title" eyebrow="Применение" title="Что можно сделать с AI Gateway" />
        <ul className="mt-10 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {USE_CASES.map((card) => (
            <li key={card.title} className="flex gap-4 rounded-2xl border border-slate-200 bg-white p-5 shadow-xs">
              <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded-xl bg-indigo-50 text-indigo-600">
                <CardIcon name={card.icon} />
              </span>
              <span className="min-w-0">
                <span className="block font-semibold text-slate-900">{card.title}</span>
                <span className="mt-1 block text-[15px] leading-6 text-slate-600">{card.text}</span>
              </span>
            </li>
          ))}
        </ul>
      </div>
    </section>
  )
}

function ProductCards() {
  return (
    <section id="playground" aria-labelledby="playground-title" className="scroll-mt-20 mx-auto w-full max-w-6xl px-4 py-16 sm:px-6 sm:py-20">
      <SectionHeading id="playground-title" eyebrow="Playground, цены и аналитика" title="Пробуйте, считайте, контролируйте" />
      <ul className="mt-10 grid gap-4 lg:grid-cols-3">
        {PRODUCT_CARDS.map((card) => (
          <li key={card.title} className="flex flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-xs">
            <span className="flex h-10 w-10 items-center justify-center rounded-xl bg-indigo-50 text-indigo-600">
              <CardIcon name={card.icon} />
            </span>
            <h3 className="mt-4 text-lg font-semibold text-slate-900">{card.title}</h3>
            <p className="mt-1 text-[15px] text-slate-600">{card.text}</p>
            <ul className="mt-4 mb-6 space-y-2 text-[15px] text-slate-700">
              {card.points.map((point) => (
                <li key={point} className="flex gap-2">
                  <CheckIcon size={16} className="mt-1 shrink-0 text-emerald-600" />
                  <span>{point}</span>
                </li>
              ))}
            </ul>
            <Link href={card.href} className="mt-auto inline-flex items-center gap-1.5 self-start rounded text-sm font-semibold text-indigo-700 hover:text-indigo-900">
              {card.cta}
              <ArrowRightIcon size={15} />
            </Link>
          </li>
        ))}
      </ul>
    </section>
  )
}

function LatestPosts() {
  const { data } = usePublicJson<PostSummary[]>(LATEST_POSTS_KEY)
  // Shown only when there is something to read.
  if (!data || data.length === 0) return null
  return (
    <section aria-labelledby="posts-title" className="border-t border-slate-200/70 bg-slate-50" data-testid="latest-posts">
      <div className="mx-auto w-full max-w-6xl px-4 py-16 sm:px-6 sm:py-20">
        <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
          <SectionHeading id="posts-title" eyebrow="Блог" title="Последние статьи о моделях" />
          <Link href="/blog" className="inline-flex items-center gap-1.5 self-start rounded text-sm font-semibold text-indigo-700 hover:text-indigo-900 sm:self-auto">
            Все статьи
            <ArrowRightIcon size={15} />
          </Link>
        </div>
        <ul className="mt-10 grid gap-5 md:grid-cols-3">
          {data.slice(0, 3).map((post) => (
            <li key={post.id} className="flex">
              <PostCard post={post} headingLevel={3} />
            </li>
          ))}
        </ul>
      </div>
    </section>
  )
}

function FinalCta() {
  return (
    <section aria-labelledby="cta-title" className="mx-auto w-full max-w-6xl px-4 py-16 sm:px-6">
      <div className="flex flex-col items-start justify-between gap-6 rounded-2xl bg-indigo-600 px-6 py-10 text-white sm:px-10 md:flex-row md:items-center">
        <div>
          <h2 id="cta-title" className="text-2xl font-semibold tracking-tight">
            Первый запрос — за пару минут
          </h2>
          <p className="mt-2 text-indigo-100">Зарегистрируйтесь, создайте ключ и подключите любой OpenAI-совместимый клиент.</p>
        </div>
        <div className="flex w-full flex-col gap-3 sm:w-auto sm:flex-row">
          <ButtonLink href="/register" variant="secondary" size="lg" className="border-transparent text-indigo-700">
            Создать аккаунт
          </ButtonLink>
          <ButtonLink href="/login" variant="ghost" size="lg" className="text-white ring-1 ring-white/50 hover:bg-white/10 hover:text-white">
            Войти в систему
          </ButtonLink>
        </div>
      </div>
    </section>
  )
}

export function LandingPage() {
  // Arriving at '/#section' (a header link from another page): scroll there once it is drawn.
  useEffect(() => {
    const id = decodeURIComponent(window.location.hash.slice(1))
    if (!id) return
    const frame = requestAnimationFrame(() => document.getElementById(id)?.scrollIntoView())
    return () => cancelAnimationFrame(frame)
  }, [])
  return (
    <>
      <Hero />
      <Features />
      <Audience />
      <ModelsTeaser />
      <UseCases />
      <ProductCards />
      <LatestPosts />
      <FinalCta />
    </>
  )
}
