// /app/team/webhook: where the team's alerts are POSTed (budget thresholds, low balance), the
// signing secret (shown once) and the latest deliveries with their retries.
import { type FormEvent, useId, useState } from 'react'
import useSWR from 'swr'
import { formatMoscowDateTime } from '../../../src/content/format'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { CopyButton } from '../../components/copy-button'
import { ConfirmDialog } from '../../components/dialog'
import { FormAlert } from '../../components/form-alert'
import { inputClasses } from '../../components/input'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { useAccount } from '../../lib/account'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { useDocumentTitle } from '../../lib/use-document-title'
import { toast } from '../../stores/toasts'
import { type TeamWebhook, teamsApi, webhookKey } from './teams-api'

const EVENTS: Record<string, string> = { 'budget.threshold': 'Бюджет: 50/80/100 %', 'team.low_balance': 'Низкий баланс', test: 'Проверка' }
const STATUS: Record<TeamWebhook['deliveries'][number]['status'], [string, string]> = {
  pending: ['ждёт повтора', 'text-amber-700'],
  delivered: ['доставлено', 'text-emerald-700'],
  failed: ['не доставлено', 'text-red-700'],
}

const VERIFY_EXAMPLE = `import { createHmac, timingSafeEqual } from 'node:crypto'

// raw — тело запроса как пришло (строкой), до JSON.parse
const expected = 'sha256=' + createHmac('sha256', process.env.WEBHOOK_SECRET).update(raw).digest('hex')
const ok = timingSafeEqual(Buffer.from(expected), Buffer.from(req.headers['x-signature']))`

export function TeamWebhookPage() {
  useDocumentTitle('Вебхук команды')
  const id = useId()
  const { teamId } = useAccount()
  const { data, error, isValidating, mutate } = useSWR<TeamWebhook>(teamId ? webhookKey(teamId) : null, { dedupingInterval: 2000 })
  const [url, setUrl] = useState('')
  const [secret, setSecret] = useState<string | null>(null)
  const [formError, setFormError] = useState<string | null>(null)
  const [pending, setPending] = useState<'save' | 'test' | 'delete' | null>(null)
  const [confirmDelete, setConfirmDelete] = useState(false)

  async function save(event: FormEvent) {
    event.preventDefault()
    if (!teamId || pending) return
    setPending('save')
    try {
      const result = await teamsApi.setWebhook(teamId, url.trim())
      setSecret(result.secret)
      setUrl('')
      setFormError(null)
      toast.success('Вебхук сохранён. Сохраните секрет: он показан один раз')
      await mutate()
    } catch (err) {
      setFormError(errorMessage(err, 'Не удалось сохранить вебхук'))
    } finally {
      setPending(null)
    }
  }

  async function test() {
    if (!teamId) return
    setPending('test')
    try {
      await teamsApi.testWebhook(teamId)
      toast.success('Тестовое событие поставлено в очередь')
      setTimeout(() => void mutate(), 1500)
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось отправить тестовое событие'))
    } finally {
      setPending(null)
    }
  }

  async function remove() {
    if (!teamId) return
    setPending('delete')
    try {
      await teamsApi.deleteWebhook(teamId)
      setSecret(null)
      setConfirmDelete(false)
      toast.success('Вебхук отключён')
      await mutate()
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось отключить вебхук'))
    } finally {
      setPending(null)
    }
  }

  return (
    <>
      <PageHeading title="Вебхук команды" description="Оповещения о бюджетах (50, 80 и 100 %) и о низком балансе — POST-запросом с JSON, подписанным секретом команды." />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-5">
        <Card className="p-4 sm:p-6 lg:col-span-3">
          <h2 className="text-base font-semibold text-slate-900">Адрес</h2>
          {!data && error ? (
            <LoadError message="Не удалось загрузить настройки." retrying={isValidating} onRetry={() => void mutate()} />
          ) : (
            <p className="mt-1 text-sm break-all text-slate-600" data-testid="webhook-url">
              {data?.url ?? (data ? 'Не задан' : '…')}
            </p>
          )}
          <form onSubmit={save} noValidate className="mt-4 flex flex-col gap-2 sm:flex-row sm:items-end">
            <div className="min-w-0 flex-1 space-y-1.5">
              <label htmlFor={id} className="text-sm font-medium text-slate-700">
                {data?.url ? 'Новый адрес' : 'Адрес вебхука'}
              </label>
              <input
                id={id}
                type="url"
                value={url}
                placeholder="https://example.ru/hooks/ai-gateway"
                onChange={(e) => {
                  setUrl(e.target.value)
                  if (formError) setFormError(null)
                }}
                aria-invalid={formError ? true : undefined}
                className={inputClasses}
              />
            </div>
            <Button type="submit" loading={pending === 'save'} disabled={!url.trim()}>
              Сохранить
            </Button>
          </form>
          <p className="mt-2 text-xs text-slate-500">Адреса в частных, локальных и служебных сетях не принимаются. При сохранении выдаётся новый секрет.</p>
          {formError && (
            <div className="mt-3">
              <FormAlert message={formError} />
            </div>
          )}
          {secret && (
            <div className="mt-4 rounded-xl border border-amber-200 bg-amber-50 p-3" data-testid="webhook-secret">
              <p className="text-sm font-medium text-amber-900">Секрет подписи — показан один раз:</p>
              <div className="mt-2 flex items-center gap-2">
                <code className="min-w-0 flex-1 font-mono text-[13px] break-all text-slate-900">{secret}</code>
                <CopyButton text={secret} />
              </div>
            </div>
          )}
          {data?.url && (
            <div className="mt-4 flex flex-wrap gap-2 border-t border-slate-100 pt-4">
              <Button variant="secondary" size="sm" loading={pending === 'test'} onClick={() => void test()}>
                Отправить тестовое событие
              </Button>
              <Button variant="secondary" size="sm" className="text-red-600 hover:border-red-200 hover:bg-red-50" onClick={() => setConfirmDelete(true)}>
                Отключить
              </Button>
            </div>
          )}
        </Card>
        <Card className="p-4 sm:p-6 lg:col-span-2">
          <h2 className="text-base font-semibold text-slate-900">Проверка подписи</h2>
          <p className="mt-1 text-sm text-slate-600">
            Заголовок <code className="font-mono text-[13px]">X-Signature: sha256=…</code> — HMAC-SHA256 тела запроса с секретом.{' '}
            <code className="font-mono text-[13px]">X-Webhook-Id</code> (он же <code className="font-mono text-[13px]">id</code> в теле) одинаков у повторов: по нему отбрасывайте
            дубли. Неудачные доставки повторяются с нарастающей паузой.
          </p>
          <pre tabIndex={0} className="mt-3 overflow-x-auto rounded-lg bg-slate-900 p-3 font-mono text-[12px] leading-5 text-slate-100">
            <code>{VERIFY_EXAMPLE}</code>
          </pre>
        </Card>
      </div>
      <Card className="mt-6 p-4 sm:p-6">
        <h2 className="text-base font-semibold text-slate-900">Последние доставки</h2>
        {!data ? (
          <ListSkeleton rows={2} />
        ) : data.deliveries.length === 0 ? (
          <EmptyNote>Доставок пока не было</EmptyNote>
        ) : (
          <ul className="mt-1 divide-y divide-slate-100" data-testid="webhook-deliveries">
            {data.deliveries.map((d) => (
              <li key={d.id} className="flex flex-wrap items-start justify-between gap-2 py-2.5 text-sm">
                <div className="min-w-0">
                  <p className="font-medium text-slate-800">{EVENTS[d.event] ?? d.event}</p>
                  <p className="font-mono text-xs break-all text-slate-500">{d.id}</p>
                </div>
                <div className="text-right">
                  <p className={cn('font-medium', STATUS[d.status][1])}>{STATUS[d.status][0]}</p>
                  <p className="text-xs text-slate-500">
                    {formatMoscowDateTime(d.createdAt)} · попыток: {d.attempts}
                    {d.lastError && ` · ${d.lastError}`}
                  </p>
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <ConfirmDialog
        open={confirmDelete}
        title="Отключение вебхука"
        message="Отключить вебхук? Оповещения будут приходить только письмами."
        confirmLabel="Отключить"
        tone="danger"
        loading={pending === 'delete'}
        onConfirm={() => void remove()}
        onCancel={() => setConfirmDelete(false)}
      />
    </>
  )
}
