import { ButtonLink } from '../../components/button'
import { ArrowRightIcon, ChatIcon, CubeIcon, WalletIcon } from '../../components/icons'
import { useDocumentTitle } from '../../lib/use-document-title'

const features = [
  {
    icon: CubeIcon,
    title: 'Единый API',
    text: 'Совместим с OpenAI: укажите наш адрес и свой ключ — остальной код остаётся прежним.',
  },
  {
    icon: WalletIcon,
    title: 'Оплата в рублях',
    text: 'Пополнение российской картой, баланс в рублях, цена запроса видна до отправки.',
  },
  {
    icon: ChatIcon,
    title: 'Playground в браузере',
    text: 'Общайтесь с моделями, прикрепляйте файлы и подбирайте настройки без строчки кода.',
  },
] as const

const snippet = `from openai import OpenAI

client = OpenAI(
    base_url="${typeof window !== 'undefined' ? window.location.origin : ''}/v1",
    api_key="ВАШ_API_КЛЮЧ",
)

reply = client.chat.completions.create(
    model="openai/gpt-3.5-turbo",
    messages=[{"role": "user", "content": "Привет!"}],
)
print(reply.choices[0].message.content)`

export function LandingPage() {
  useDocumentTitle()
  return (
    <>
      <section className="relative overflow-hidden border-b border-slate-200/70 bg-[radial-gradient(ellipse_70%_60%_at_50%_-20%,rgb(99_102_241/0.14),transparent)]">
        <div className="mx-auto grid max-w-6xl items-center gap-12 px-4 py-16 sm:px-6 sm:py-24 lg:grid-cols-[1.2fr_1fr]">
          <div>
            <p className="inline-flex items-center gap-2 rounded-full border border-indigo-200 bg-white px-3 py-1 text-xs font-medium text-indigo-700 shadow-xs">
              <span className="h-1.5 w-1.5 rounded-full bg-indigo-500" />
              OpenAI-совместимый API
            </p>
            <h1 className="mt-5 text-[34px] leading-[1.1] font-semibold tracking-tight text-balance text-slate-900 sm:text-5xl">
              Доступ к 300+ <span className="whitespace-nowrap">AI-моделям</span> в рублях
            </h1>
            <p className="mt-5 max-w-xl text-lg leading-8 text-slate-600">
              Тексты, изображения и анализ картинок через единый API и веб-Playground. Оплата российскими картами,
              списание только за использование.
            </p>
            <div className="mt-8 flex flex-col gap-3 sm:flex-row">
              <ButtonLink href="/register" size="lg">
                Попробовать бесплатно
                <ArrowRightIcon size={16} />
              </ButtonLink>
              <ButtonLink href="/app/playground" variant="secondary" size="lg">
                Открыть Playground
              </ButtonLink>
            </div>
            <p className="mt-4 text-sm text-slate-500">50 ₽ на баланс после регистрации · без подписки</p>
          </div>
          <div className="min-w-0 overflow-hidden rounded-2xl border border-slate-800 bg-slate-900 shadow-2xl shadow-indigo-900/20">
            <div className="flex items-center gap-1.5 border-b border-white/10 px-4 py-3">
              <span className="h-2.5 w-2.5 rounded-full bg-slate-700" />
              <span className="h-2.5 w-2.5 rounded-full bg-slate-700" />
              <span className="h-2.5 w-2.5 rounded-full bg-slate-700" />
              <span className="ml-2 text-xs text-slate-400">main.py</span>
            </div>
            <pre className="overflow-x-auto p-5 font-mono text-[13px] leading-6 text-slate-100">
              <code>{snippet}</code>
            </pre>
          </div>
        </div>
      </section>

      <section className="mx-auto w-full max-w-6xl px-4 py-16 sm:px-6 sm:py-20">
        <h2 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">Всё для работы с AI в одном месте</h2>
        <div className="mt-8 grid gap-4 md:grid-cols-3">
          {features.map(({ icon: Icon, title, text }) => (
            <div key={title} className="rounded-2xl border border-slate-200 bg-white p-6 shadow-xs">
              <span className="flex h-10 w-10 items-center justify-center rounded-xl bg-indigo-50 text-indigo-600">
                <Icon size={20} />
              </span>
              <h3 className="mt-4 text-base font-semibold text-slate-900">{title}</h3>
              <p className="mt-2 text-[15px] leading-6 text-slate-600">{text}</p>
            </div>
          ))}
        </div>
      </section>

      <section className="mx-auto mb-16 w-full max-w-6xl px-4 sm:px-6">
        <div className="flex flex-col items-start justify-between gap-6 rounded-2xl bg-indigo-600 px-6 py-10 text-white sm:px-10 md:flex-row md:items-center">
          <div>
            <h2 className="text-2xl font-semibold tracking-tight">Первый запрос — за пару минут</h2>
            <p className="mt-2 text-indigo-100">Зарегистрируйтесь, создайте ключ и подключите любой OpenAI-совместимый клиент.</p>
          </div>
          <div className="flex flex-col gap-3 sm:flex-row">
            <ButtonLink href="/register" variant="secondary" size="lg" className="border-transparent text-indigo-700">
              Создать аккаунт
            </ButtonLink>
            <ButtonLink
              href="/login"
              variant="ghost"
              size="lg"
              className="text-white ring-1 ring-white/40 hover:bg-white/10 hover:text-white"
            >
              Войти в систему
            </ButtonLink>
          </div>
        </div>
      </section>
    </>
  )
}
