// Saved cards and auto top-up (issue 37): «Сохранённые способы оплаты» — the account's saved cards,
// each deleted after a confirmation — and «Автопополнение»: on/off, the threshold, the amount, the
// card, the daily limit, and why it turned itself off. GET /api/payments/methods,
// DELETE /api/payments/methods/{id}, GET/PUT /api/billing/auto-topup ({success,data} envelope).
import { type FormEvent, type ReactNode, useEffect, useId, useState } from 'react'
import useSWR, { mutate } from 'swr'
import { formatDateTime, formatRubles } from '../../../src/content/format'
import type { AutoTopup, PaymentMethod } from '../../../src/wire'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { ConfirmDialog } from '../../components/dialog'
import { FormAlert } from '../../components/form-alert'
import { AlertCircleIcon, WalletIcon as CardIcon, TrashIcon } from '../../components/icons'
import { MoneyInput } from '../../components/input'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { Select } from '../../components/select'
import { api, errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { parseRubles } from '../../lib/parse-rubles'
import { toast } from '../../stores/toasts'

export const METHODS_KEY = '/api/payments/methods'
export const AUTO_TOPUP_KEY = '/api/billing/auto-topup'

export const useSavedMethods = () => useSWR<PaymentMethod[]>(METHODS_KEY)
export const useAutoTopup = () => useSWR<AutoTopup>(AUTO_TOPUP_KEY)

const expiry = (m: PaymentMethod) => (m.expiryMonth && m.expiryYear ? `до ${m.expiryMonth.padStart(2, '0')}/${m.expiryYear.slice(-2)}` : null)

/** The account's saved cards; deleting one (after «Удалить карту?») also switches off auto top-up from it. */
export function SavedMethods({ className }: { className?: string }) {
  const { data, error, isLoading, isValidating, mutate: reload } = useSavedMethods()
  const auto = useAutoTopup()
  const [asking, setAsking] = useState<PaymentMethod | null>(null)
  const [pending, setPending] = useState(false)
  const items = Array.isArray(data) ? data : undefined

  async function remove(m: PaymentMethod) {
    setPending(true)
    try {
      await api.delete(`${METHODS_KEY}/${encodeURIComponent(m.id)}`, { fallback: 'Не удалось удалить карту' })
      await Promise.all([reload(), mutate(AUTO_TOPUP_KEY)])
      toast.success('Карта удалена')
      setAsking(null)
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось удалить карту'))
    } finally {
      setPending(false)
    }
  }

  let body: ReactNode
  if (items && items.length > 0) {
    body = (
      <ul data-testid="saved-methods" className="divide-y divide-slate-100">
        {items.map((m) => (
          <li key={m.id} data-testid="saved-method" className="flex items-center justify-between gap-3 py-3">
            <div className="min-w-0">
              <p className="text-sm font-semibold break-words text-slate-900">
                <CardIcon size={16} className="mr-1.5 inline-block align-[-3px] text-slate-400" />
                {m.label}
              </p>
              <p className="mt-0.5 text-xs text-slate-500">
                {[expiry(m), `сохранена ${formatDateTime(m.createdAt)}`].filter(Boolean).join(' · ')}
                {auto.data?.enabled && auto.data.paymentMethodId === m.id && <span className="whitespace-nowrap text-emerald-700"> · автопополнение</span>}
              </p>
            </div>
            <Button variant="ghost" size="sm" aria-label={`Удалить: ${m.label}`} onClick={() => setAsking(m)}>
              <TrashIcon size={16} />
              <span className="hidden sm:inline">Удалить</span>
            </Button>
          </li>
        ))}
      </ul>
    )
  } else if (items) {
    body = <EmptyNote>Сохранённых карт нет. Отметьте «Сохранить карту…» при следующем пополнении картой.</EmptyNote>
  } else if (error) {
    body = <LoadError message="Не удалось загрузить сохранённые карты." retrying={isValidating} onRetry={() => void reload()} />
  } else body = isLoading ? <ListSkeleton rows={1} /> : null

  const usedByAuto = asking && auto.data?.enabled && auto.data.paymentMethodId === asking.id
  return (
    <Card className={cn('p-4 sm:p-6', className)} data-testid="saved-methods-card">
      <h2 className="text-base font-semibold text-slate-900">Сохранённые способы оплаты</h2>
      <p className="mt-1 text-sm text-slate-500">Карты хранит ЮKassa; у нас — только последние 4 цифры и срок действия.</p>
      <div className="mt-2">{body}</div>
      <ConfirmDialog
        open={asking !== null}
        title="Удалить карту?"
        message={
          asking && (
            <>
              {asking.label} больше не будет предлагаться для оплаты.
              {usedByAuto ? ' Автопополнение с этой карты будет выключено.' : ''}
            </>
          )
        }
        confirmLabel="Удалить карту"
        tone="danger"
        loading={pending}
        onConfirm={() => asking && void remove(asking)}
        onCancel={() => setAsking(null)}
      />
    </Card>
  )
}

/** '100' / '99,5' for a field: no grouping, so what is shown parses back. */
const toInput = (rub: number) => String(rub).replace('.', ',')

type Fields = { threshold: string; amount: string; daily: string; methodId: string }

/** Why the fields cannot be sent, or null (the server says the same in its 400s). */
function invalid(f: Fields, enabled: boolean): string | null {
  const threshold = parseRubles(f.threshold)
  const amount = parseRubles(f.amount)
  const daily = parseRubles(f.daily)
  if (!Number.isFinite(threshold) || threshold < 1 || threshold > 1_000_000) return 'Порог — число от 1 до 1 000 000 ₽'
  if (!Number.isFinite(amount) || amount < 100 || amount > 1_000_000) return 'Сумма автопополнения — от 100 до 1 000 000 ₽'
  if (!Number.isFinite(daily) || daily < amount || daily > 10_000_000) return 'Дневной лимит — не меньше суммы автопополнения и не больше 10 000 000 ₽'
  if (enabled && !f.methodId) return 'Чтобы включить автопополнение, выберите сохранённую карту'
  return null
}

/** «Автопополнение»: when the available balance falls below the threshold, the amount is charged to the chosen card. */
export function AutoTopupForm({ className }: { className?: string }) {
  const ids = { switch: useId(), threshold: useId(), amount: useId(), card: useId(), daily: useId() }
  const { data, error: loadError, mutate: reload } = useAutoTopup()
  const methods = useSavedMethods()
  const cards = Array.isArray(methods.data) ? methods.data : []
  const [enabled, setEnabled] = useState(false)
  const [fields, setFields] = useState<Fields>({ threshold: '', amount: '', daily: '', methodId: '' })
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)

  // The saved settings, once they arrive (and after they change on the server).
  useEffect(() => {
    if (!data) return
    setEnabled(data.enabled)
    setFields({ threshold: toInput(data.thresholdRub), amount: toInput(data.amountRub), daily: toInput(data.dailyLimitRub), methodId: data.paymentMethodId ?? '' })
  }, [data])
  // The only card is the natural choice.
  useEffect(() => {
    if (!fields.methodId && cards.length === 1) setFields((f) => ({ ...f, methodId: cards[0]!.id }))
  }, [cards, fields.methodId])

  const set = (key: keyof Fields) => (value: string) => {
    setFields((f) => ({ ...f, [key]: value }))
    if (error) setError(null)
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (pending) return
    const problem = invalid(fields, enabled)
    if (problem) {
      setError(problem)
      return
    }
    setError(null)
    setPending(true)
    try {
      const saved = await api.put<AutoTopup>(
        AUTO_TOPUP_KEY,
        {
          enabled,
          thresholdRub: parseRubles(fields.threshold),
          amountRub: parseRubles(fields.amount),
          dailyLimitRub: parseRubles(fields.daily),
          paymentMethodId: fields.methodId || null,
        },
        { fallback: 'Не удалось сохранить автопополнение' },
      )
      await reload(saved, { revalidate: false })
      toast.success(saved.enabled ? 'Автопополнение включено' : 'Автопополнение выключено')
    } catch (err) {
      setError(errorMessage(err, 'Не удалось сохранить автопополнение'))
    } finally {
      setPending(false)
    }
  }

  const noCards = methods.data !== undefined && cards.length === 0
  return (
    <Card className={cn('p-4 sm:p-6', className)} data-testid="auto-topup">
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="text-base font-semibold text-slate-900">Автопополнение</h2>
          <p className="mt-1 text-sm text-slate-500">
            Когда доступный баланс опустится ниже порога, спишем выбранную сумму с сохранённой карты — без подтверждения, не больше дневного лимита. Письмо придёт после каждого
            списания.
          </p>
        </div>
        <label htmlFor={ids.switch} className="flex shrink-0 cursor-pointer items-center gap-2 text-sm font-medium text-slate-700">
          <span className="sr-only sm:not-sr-only">{enabled ? 'Включено' : 'Выключено'}</span>
          <span className="relative inline-flex h-6 w-11">
            {/* The real checkbox covers the drawn switch (transparent): it is what is clicked, focused and read. */}
            <input
              id={ids.switch}
              type="checkbox"
              role="switch"
              aria-label="Автопополнение включено"
              aria-checked={enabled}
              checked={enabled}
              onChange={(e) => {
                setEnabled(e.target.checked)
                if (error) setError(null)
              }}
              className="peer absolute inset-0 z-10 m-0 h-full w-full cursor-pointer appearance-none rounded-full opacity-0"
            />
            <span className="h-6 w-11 rounded-full bg-slate-300 transition-colors peer-checked:bg-indigo-600 peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-indigo-500" />
            <span className="absolute top-0.5 left-0.5 h-5 w-5 rounded-full bg-white shadow transition-transform peer-checked:translate-x-5" />
          </span>
        </label>
      </div>

      {data?.disabledReason && !data.enabled && (
        <p data-testid="auto-topup-disabled" className="mt-4 flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2.5 text-sm text-red-800">
          <AlertCircleIcon size={16} className="mt-0.5 shrink-0" />
          <span>
            <strong className="font-semibold">Автопополнение выключилось:</strong> {data.disabledReason}. Проверьте карту или сохраните другую и включите его снова.
          </span>
        </p>
      )}
      {data?.enabled && data.retryAfter && (
        <p data-testid="auto-topup-retry" className="mt-4 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2.5 text-sm text-amber-900">
          Банк отклонил последнее списание. Следующая попытка — {formatDateTime(data.retryAfter)} (не больше трёх неудачных попыток в день).
        </p>
      )}

      <form noValidate onSubmit={onSubmit} className="mt-4">
        <div className="grid gap-3 sm:grid-cols-2">
          <div className="min-w-0">
            <label htmlFor={ids.threshold} className="block text-sm font-medium text-slate-700">
              Когда баланс ниже, ₽
            </label>
            <MoneyInput id={ids.threshold} placeholder="Например, 200" value={fields.threshold} onValueChange={set('threshold')} invalid={!!error} className="mt-1.5 w-full" />
          </div>
          <div className="min-w-0">
            <label htmlFor={ids.amount} className="block text-sm font-medium text-slate-700">
              Пополнять на, ₽
            </label>
            <MoneyInput id={ids.amount} placeholder="Например, 1000" value={fields.amount} onValueChange={set('amount')} invalid={!!error} className="mt-1.5 w-full" />
          </div>
          <div className="min-w-0">
            <label htmlFor={ids.card} className="block text-sm font-medium text-slate-700">
              Карта
            </label>
            <Select id={ids.card} value={fields.methodId} onChange={(e) => set('methodId')(e.target.value)} wrapperClassName="mt-1.5" disabled={noCards}>
              <option value="">{noCards ? 'Нет сохранённых карт' : 'Выберите карту'}</option>
              {cards.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.label}
                </option>
              ))}
            </Select>
          </div>
          <div className="min-w-0">
            <label htmlFor={ids.daily} className="block text-sm font-medium text-slate-700">
              Не больше в сутки, ₽
            </label>
            <MoneyInput id={ids.daily} placeholder="Например, 3000" value={fields.daily} onValueChange={set('daily')} invalid={!!error} className="mt-1.5 w-full" />
          </div>
        </div>
        <p className="mt-2 text-xs leading-5 text-slate-500">
          {noCards
            ? 'Сначала пополните баланс картой, отметив «Сохранить карту для следующих платежей и автопополнения».'
            : 'Доступный баланс — баланс за вычетом резерва выполняющихся запросов. Сутки считаются по московскому времени; выключить можно в любой момент.'}
          {data?.enabled && data.chargedTodayRub > 0 && <> Сегодня пополнено на {formatRubles(data.chargedTodayRub)}.</>}
        </p>
        {error && (
          <div className="mt-3">
            <FormAlert message={error} />
          </div>
        )}
        {loadError && !data && <p className="mt-3 text-sm text-red-700">Не удалось загрузить настройки автопополнения.</p>}
        <Button type="submit" variant="secondary" className="mt-4 w-full sm:w-auto" loading={pending}>
          Сохранить
        </Button>
      </form>
    </Card>
  )
}
