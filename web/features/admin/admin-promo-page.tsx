// /app/admin/promo-codes: create a promo code (code, amount, how many accounts, until when), the list
// with each code's uses and state, and «Отключить» (for good: a disabled code is not turned back on).
import { type FormEvent, type ReactNode, useId, useState } from 'react'
import { formatDate, formatDateTime, formatInteger, formatRubles } from '../../../src/content/format'
import { PROMO_RULES } from '../../../src/content/promo'
import { Button } from '../../components/button'
import { Card } from '../../components/card'
import { ConfirmDialog } from '../../components/dialog'
import { FormAlert } from '../../components/form-alert'
import { PowerIcon } from '../../components/icons'
import { FieldFrame, inputClasses, MoneyInput } from '../../components/input'
import { EmptyNote, ListSkeleton, LoadError } from '../../components/list-state'
import { PageHeading } from '../../components/page-heading'
import { errorMessage } from '../../lib/api'
import { cn } from '../../lib/cn'
import { parseRubles } from '../../lib/parse-rubles'
import { useDocumentTitle } from '../../lib/use-document-title'
import { toast } from '../../stores/toasts'
import { Badge } from './admin-ui'
import { endOfMoscowDay, PROMO_STATE_LABELS, type PromoCode, type PromoCodeState, promoApi, usePromoCodes } from './promo-api'

const STATE_TONES: Record<PromoCodeState, 'emerald' | 'slate' | 'amber' | 'red'> = { active: 'emerald', expired: 'amber', disabled: 'red', used_up: 'slate' }

/** Today in Moscow, 'YYYY-MM-DD': the earliest day a code may run until. */
const moscowToday = () => new Date(Date.now() + 3 * 3600_000).toISOString().slice(0, 10)

function CreateForm({ onCreated }: { onCreated: () => Promise<unknown> }) {
  const ids = { code: useId(), amount: useId(), uses: useId(), until: useId() }
  const [code, setCode] = useState('')
  const [amount, setAmount] = useState('')
  const [uses, setUses] = useState('')
  const [until, setUntil] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (pending) return
    if (!code.trim() || !amount.trim() || !uses.trim()) return setError('Заполните код, сумму и число активаций')
    setError(null)
    setPending(true)
    try {
      const created = await promoApi.create({
        code: code.trim(),
        amountRub: parseRubles(amount),
        maxUses: Number(uses.replace(/[\s\u00a0]/g, '')),
        expiresAt: until ? endOfMoscowDay(until) : null,
      })
      toast.success(`Промокод ${created.code} создан`)
      setCode('')
      setAmount('')
      setUses('')
      setUntil('')
      await onCreated()
    } catch (err) {
      setError(errorMessage(err, 'Не удалось создать промокод'))
    } finally {
      setPending(false)
    }
  }

  const clear = () => error && setError(null)
  return (
    <Card className="p-4 sm:p-6" data-testid="promo-create">
      <h2 className="text-base font-semibold text-slate-900">Новый промокод</h2>
      <p className="mt-1 text-sm text-slate-500">
        Каждый аккаунт (личный или команды) активирует код один раз, сумма сразу зачисляется на баланс. Деньги по промокоду не возвращаются.
      </p>
      <form noValidate onSubmit={onSubmit} className="mt-4 grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <FieldFrame label="Код" inputId={ids.code} hint={`${PROMO_RULES.codeRule.charAt(0).toUpperCase()}${PROMO_RULES.codeRule.slice(1)}`} hintId={`${ids.code}-hint`}>
          <input
            id={ids.code}
            aria-describedby={`${ids.code}-hint`}
            autoComplete="off"
            spellCheck={false}
            maxLength={32}
            placeholder="SPRING2026"
            value={code}
            onChange={(e) => {
              setCode(e.target.value)
              clear()
            }}
            className={cn(inputClasses, 'font-mono uppercase placeholder:normal-case')}
          />
        </FieldFrame>
        <FieldFrame label="Сумма, ₽" inputId={ids.amount} hint="Сколько получает аккаунт" hintId={`${ids.amount}-hint`}>
          <MoneyInput
            id={ids.amount}
            aria-describedby={`${ids.amount}-hint`}
            placeholder="500"
            value={amount}
            onValueChange={(v) => {
              setAmount(v)
              clear()
            }}
            invalid={false}
          />
        </FieldFrame>
        <FieldFrame label="Активаций" inputId={ids.uses} hint="Сколько аккаунтов могут его ввести" hintId={`${ids.uses}-hint`}>
          <input
            id={ids.uses}
            aria-describedby={`${ids.uses}-hint`}
            inputMode="numeric"
            autoComplete="off"
            placeholder="100"
            value={uses}
            onChange={(e) => {
              setUses(e.target.value)
              clear()
            }}
            className={inputClasses}
          />
        </FieldFrame>
        <FieldFrame label="Действует до" inputId={ids.until} hint="Включительно, по Москве; пусто — бессрочно" hintId={`${ids.until}-hint`}>
          <input
            id={ids.until}
            aria-describedby={`${ids.until}-hint`}
            type="date"
            min={moscowToday()}
            value={until}
            onChange={(e) => {
              setUntil(e.target.value)
              clear()
            }}
            className={inputClasses}
          />
        </FieldFrame>
        <div className="flex flex-col gap-3 sm:col-span-2 xl:col-span-4">
          {error && <FormAlert message={error} />}
          <Button type="submit" loading={pending} className="sm:self-start">
            Создать промокод
          </Button>
        </div>
      </form>
    </Card>
  )
}

function Figure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="font-medium text-slate-900 tabular-nums">{children}</dd>
    </div>
  )
}

function PromoRow({ promo, onDisable }: { promo: PromoCode; onDisable: () => void }) {
  return (
    <li data-testid="promo-row" className="flex flex-col gap-3 px-4 py-4 sm:px-6 lg:flex-row lg:items-center">
      <div className="min-w-0 lg:w-64">
        <p className="font-mono font-semibold break-all text-slate-900">{promo.code}</p>
        <p className="mt-1">
          <Badge tone={STATE_TONES[promo.state]}>{PROMO_STATE_LABELS[promo.state]}</Badge>
        </p>
      </div>
      <dl className="grid flex-1 grid-cols-2 gap-3 text-sm sm:grid-cols-4">
        <Figure label="Сумма">
          <span className="whitespace-nowrap">{formatRubles(promo.amountRub)}</span>
        </Figure>
        <Figure label="Активации">
          <span className="whitespace-nowrap" data-testid="promo-uses">
            {formatInteger(promo.uses)} из {formatInteger(promo.maxUses)}
          </span>
        </Figure>
        <Figure label="Действует до">{promo.expiresAt ? formatDateTime(promo.expiresAt) : 'бессрочно'}</Figure>
        <Figure label={promo.disabledAt ? 'Отключён' : 'Создан'}>{formatDate(promo.disabledAt ?? promo.createdAt)}</Figure>
      </dl>
      <div className="lg:w-36 lg:text-right">
        {!promo.disabledAt && (
          <Button variant="secondary" size="sm" onClick={onDisable} aria-label={`Отключить промокод ${promo.code}`}>
            <PowerIcon size={15} />
            Отключить
          </Button>
        )}
      </div>
    </li>
  )
}

export function AdminPromoPage() {
  useDocumentTitle('Промокоды')
  const { data, error, isLoading, isValidating, mutate } = usePromoCodes()
  const [disabling, setDisabling] = useState<PromoCode | null>(null)
  const [pending, setPending] = useState(false)

  async function disable() {
    if (!disabling) return
    setPending(true)
    try {
      await promoApi.disable(disabling.id)
      toast.success(`Промокод ${disabling.code} отключён`)
      setDisabling(null)
      await mutate()
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось отключить промокод'))
    } finally {
      setPending(false)
    }
  }

  let list: ReactNode
  if (data && data.length > 0)
    list = (
      <ul className="divide-y divide-slate-100" data-testid="promo-list">
        {data.map((p) => (
          <PromoRow key={p.id} promo={p} onDisable={() => setDisabling(p)} />
        ))}
      </ul>
    )
  else if (data) list = <EmptyNote>Промокодов пока нет</EmptyNote>
  else if (error) list = <LoadError message={errorMessage(error, 'Не удалось загрузить промокоды.')} retrying={isValidating} onRetry={() => void mutate()} />
  else list = isLoading ? <ListSkeleton /> : null

  return (
    <>
      <PageHeading title="Промокоды" description="Коды для акций: сумма на баланс, число активаций и срок действия." />
      <div className="space-y-6">
        <CreateForm onCreated={() => mutate()} />
        <Card className="overflow-hidden">
          <div className="border-b border-slate-200 px-4 py-4 sm:px-6">
            <h2 className="text-base font-semibold text-slate-900">Все промокоды</h2>
          </div>
          <div className={cn('transition-opacity', isValidating && data && 'opacity-70')}>{list}</div>
        </Card>
      </div>
      <ConfirmDialog
        open={disabling !== null}
        title="Отключить промокод"
        message={disabling && `Промокод ${disabling.code} перестанет активироваться. Уже зачисленные суммы останутся у клиентов. Включить его снова нельзя.`}
        confirmLabel="Отключить"
        tone="danger"
        loading={pending}
        onConfirm={() => void disable()}
        onCancel={() => setDisabling(null)}
      />
    </>
  )
}
