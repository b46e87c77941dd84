import { type ReactNode, useState } from 'react'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { KeyIcon } from '../../components/icons'
import { PageHeading } from '../../components/page-heading'
import { useAccount } from '../../lib/account'
import { useDocumentTitle } from '../../lib/use-document-title'
import { CreateKeyForm, NewKeyPanel } from './create-key'
import { KeyList } from './key-list'
import { type CreatedApiKey, MAX_KEYS, useApiKeys, withoutSecret } from './keys-api'
import { UsageHint } from './usage-hint'

function ListSkeleton() {
  return (
    <ul className="divide-y divide-slate-100" aria-hidden="true">
      {[0, 1, 2].map((i) => (
        <li key={i} className="flex items-center justify-between gap-4 px-4 py-4 sm:px-6">
          <div className="space-y-2">
            <div className="h-4 w-36 animate-pulse rounded bg-slate-100" />
            <div className="h-3 w-28 animate-pulse rounded bg-slate-100" />
          </div>
          <div className="h-6 w-20 animate-pulse rounded-full bg-slate-100" />
        </li>
      ))}
    </ul>
  )
}

export function ApiKeysPage() {
  useDocumentTitle('API ключи')
  const { data, error, isLoading, isValidating, mutate } = useApiKeys()
  const keys = Array.isArray(data) ? data : undefined
  // The full key lives only here, only until the user acknowledges it.
  const [created, setCreated] = useState<CreatedApiKey | null>(null)
  // A team set to «Только в РФ» binds every team key, whatever the key's own setting.
  const teamRuOnly = useAccount().team?.residency === 'ru'

  async function onCreated(next: CreatedApiKey) {
    setCreated(next)
    await mutate((list) => [withoutSecret(next), ...(list ?? []).filter((k) => k.id !== next.id)], { revalidate: true })
  }

  let list: ReactNode
  if (keys && keys.length > 0) {
    list = <KeyList keys={keys} mutate={mutate} teamRuOnly={teamRuOnly} onDeleted={(id) => setCreated((c) => (c?.id === id ? null : c))} />
  } else if (keys) {
    list = (
      <div className="flex flex-col items-center px-6 py-12 text-center">
        <div className="mb-4 flex h-11 w-11 items-center justify-center rounded-full bg-indigo-50 text-indigo-600">
          <KeyIcon size={20} />
        </div>
        <p className="text-[15px] font-medium text-slate-800">У вас пока нет API ключей</p>
        <p className="mt-1 max-w-sm text-sm text-slate-500">Создайте первый ключ в форме выше — он нужен, чтобы обращаться к моделям из своего кода, скриптов и приложений.</p>
      </div>
    )
  } else if (error) {
    list = (
      <div className="px-6 py-10 text-center text-sm text-slate-500">
        <p role="alert">Не удалось загрузить список ключей.</p>
        <Button variant="secondary" size="sm" className="mt-3" loading={isValidating} onClick={() => void mutate()}>
          Повторить
        </Button>
      </div>
    )
  } else {
    list = isLoading ? <ListSkeleton /> : null
  }

  return (
    <>
      <PageHeading
        title="API ключи"
        description="Ключи для доступа к API из ваших приложений. Расходы по каждому ключу можно ограничить бюджетом на день, неделю, месяц или без периода."
      />
      <div className="space-y-6">
        {created && <NewKeyPanel key={created.id} created={created} onDismiss={() => setCreated(null)} />}
        <CreateKeyForm keyCount={keys?.length} teamRuOnly={teamRuOnly} onCreated={onCreated} />
        <Card className="overflow-hidden">
          <div className="flex items-baseline justify-between gap-3 border-b border-slate-200 px-4 py-4 sm:px-6">
            <h2 className="text-base font-semibold text-slate-900">Ваши ключи</h2>
            {keys && keys.length > 0 && (
              <span className="text-sm whitespace-nowrap text-slate-500 tabular-nums">
                {keys.length} из {MAX_KEYS}
              </span>
            )}
          </div>
          {list}
        </Card>
        <UsageHint />
      </div>
    </>
  )
}
