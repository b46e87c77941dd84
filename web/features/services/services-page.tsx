import type { ComponentType } from 'react'
import { servicesDocument } from '../../../src/content/services'
import { ButtonLink } from '../../components/button'
import { ChartIcon, ChatIcon, CoinsIcon, CubeIcon, type IconProps, ShieldIcon, SparklesIcon } from '../../components/icons'
import { RichBlocks } from '../../components/rich-document'
import { siteSeller } from '../../lib/seller'

const ICONS: Record<string, ComponentType<IconProps>> = {
  api: CubeIcon,
  playground: ChatIcon,
  images: SparklesIcon,
  analytics: ChartIcon,
  pricing: CoinsIcon,
  provider: ShieldIcon,
}

/** /services: what the customer buys, how it is priced, and where to start. */
export function ServicesPage() {
  const doc = servicesDocument(siteSeller)
  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-10 sm:px-6 sm:py-14">
      <div className="max-w-3xl">
        <h1 className="text-2xl leading-tight font-semibold tracking-tight break-words text-slate-900 min-[400px]:text-[28px] sm:text-4xl">{doc.title}</h1>
        <p className="mt-3 text-[17px] leading-7 text-slate-600">{doc.lead}</p>
        <div className="mt-6 flex flex-col gap-3 sm:flex-row">
          <ButtonLink href="/register" size="lg">
            Зарегистрироваться
          </ButtonLink>
          <ButtonLink href="/docs" variant="secondary" size="lg">
            Документация
          </ButtonLink>
        </div>
      </div>
      <div className="mt-10 grid gap-4 md:grid-cols-2">
        {doc.sections.map((section) => {
          const Icon = ICONS[section.id] ?? CubeIcon
          return (
            <section key={section.id} id={section.id} aria-labelledby={`${section.id}-title`} className="scroll-mt-24 rounded-2xl border border-slate-200 bg-white p-6 shadow-xs">
              <div className="flex items-center gap-3">
                <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded-xl bg-indigo-50 text-indigo-600">
                  <Icon size={20} />
                </span>
                <h2 id={`${section.id}-title`} className="text-lg font-semibold text-slate-900">
                  {section.title}
                </h2>
              </div>
              <div className="mt-2">
                <RichBlocks blocks={section.blocks} />
              </div>
            </section>
          )
        })}
      </div>
      <div className="mt-10 flex flex-col items-start justify-between gap-5 rounded-2xl bg-indigo-600 px-6 py-8 text-white sm:px-10 md:flex-row md:items-center">
        <div>
          <h2 className="text-xl font-semibold tracking-tight sm:text-2xl">Начните за пару минут</h2>
          <p className="mt-1.5 text-indigo-100">Регистрация, API ключ и первый запрос — по шагам в документации.</p>
        </div>
        <div className="flex w-full flex-col gap-3 sm:w-auto sm:flex-row">
          <ButtonLink href="/register" variant="secondary" size="lg" className="border-transparent text-indigo-700">
            Создать аккаунт
          </ButtonLink>
          <ButtonLink href="/docs" variant="ghost" size="lg" className="text-white ring-1 ring-white/40 hover:bg-white/10 hover:text-white">
            Читать документацию
          </ButtonLink>
        </div>
      </div>
    </div>
  )
}
