import { type FormEvent, useId, useState } from 'react'
import { formatRublesExact } from '../../../src/content/format'
import { availableRubles, overDeductionMessage } from '../../../src/content/ledger'
import { Button } from '../../components/button'
import { Dialog } from '../../components/dialog'
import { Input, textareaClasses } from '../../components/input'
import { errorMessage } from '../../lib/api'
import { toast } from '../../stores/toasts'
import { REASON_MAX_LENGTH, teamsAdminApi, usersApi } from './admin-api'

/**
 * Whose balance: a user's (the spec's dialog) or a team's; `label` is the e-mail or the team's name;
 * `held` what running requests hold of it (a deduction may take only the rest).
 */
export type BalanceTarget = { kind: 'user' | 'team'; id: string; label: string; balance: number; held: number }

/**
 * The amount as a Russian admin types it: «30,5» and «30.5» are 30.5, «-30,5» (or «−30,5») is −30.5,
 * spaces may group thousands («1 000»). Anything else — two separators («1.000,5», «1,2,3»),
 * letters, more than six decimals (a micro-ruble) — is not read at all: NaN, and the field says
 * why, rather than a guess such as 305.
 */
const AMOUNT_RE = /^([+\-\u2212]?)(\d{1,3}(?:[ \u00a0\u202f]\d{3})+|\d+)(?:[.,](\d{1,6}))?$/
export function parseAmount(raw: string): number {
  const m = raw.trim().match(AMOUNT_RE)
  if (!m) return Number.NaN
  const [, sign, whole, frac] = m
  return Number(`${sign === '' || sign === '+' ? '' : '-'}${whole!.replace(/\D/g, '')}.${frac ?? '0'}`)
}

export const AMOUNT_INVALID = 'Введите сумму числом: например, 30,5 или -100 (до 6 знаков после запятой)'

/** Micro-rubles of a ruble amount: the balance check in integers, as the server does it (no float drift). */
const toMicros = (rubles: number) => Math.round(rubles * 1_000_000)

/**
 * Spec §2: the user (or a team), the current balance and a signed amount — positive tops up,
 * negative deducts; issue 29: and the reason, which the customer reads in their history
 * («Корректировка администратора: …»).
 */
export function BalanceDialog({ user, onClose, onDone }: { user: BalanceTarget | null; onClose: () => void; onDone: () => void }) {
  const [value, setValue] = useState('')
  const [reason, setReason] = useState('')
  const [pending, setPending] = useState(false)
  const reasonId = useId()

  function close() {
    if (pending) return
    setValue('')
    setReason('')
    onClose()
  }

  async function apply(event: FormEvent) {
    event.preventDefault()
    const amount = parseAmount(value)
    if (!user || pending || !Number.isFinite(amount) || overDeduction) return
    setPending(true)
    try {
      await (user.kind === 'team' ? teamsAdminApi : usersApi).adjustBalance(user.id, amount, reason)
      toast.success('Баланс обновлен')
      setValue('')
      setReason('')
      onDone()
    } catch (err) {
      // One error, not two: the spec's toast, carrying the server's reason when it gave one
      // (e.g. the balance was spent meanwhile); the form itself says nothing more.
      const reason = errorMessage(err, '')
      toast.error(reason ? `Ошибка обновления баланса. ${reason}` : 'Ошибка обновления баланса')
    } finally {
      setPending(false)
    }
  }

  const amount = parseAmount(value)
  // Typed but not a number we can read: said beside the field, and «Применить» stays off. Half a
  // number on its way («-», «30,») keeps it off without scolding.
  const typing = /^[+\-\u2212]?([\d \u00a0\u202f]*\d[.,])?$/.test(value.trim())
  const unreadable = value.trim() !== '' && Number.isNaN(amount) && !typing
  const preview = user && Number.isFinite(amount) && amount !== 0 ? user.balance + amount : null
  // Deducting more than is available (held money pays for running requests): refused before it is
  // sent, so «Применить» stays off.
  const overDeduction = user !== null && Number.isFinite(amount) && toMicros(availableRubles(user.balance, user.held)) + toMicros(amount) < 0

  return (
    <Dialog
      open={user !== null}
      onClose={close}
      title="Изменение баланса"
      footer={
        <>
          <Button variant="secondary" onClick={close} disabled={pending}>
            Отмена
          </Button>
          <Button type="submit" form="balance-form" loading={pending} disabled={!Number.isFinite(amount) || pending || overDeduction}>
            Применить
          </Button>
        </>
      }
      description={
        user && (
          <>
            <span className="block font-medium break-all text-slate-900">{user.kind === 'team' ? `Команда «${user.label}»` : user.label}</span>
            <span className="mt-1 block">
              Текущий баланс: <span className="font-medium whitespace-nowrap text-slate-900 tabular-nums">{formatRublesExact(user.balance)}</span>
            </span>
            {user.held > 0 && (
              <span className="mt-1 block" data-testid="balance-held">
                Зарезервировано под выполняющиеся запросы: <span className="font-medium whitespace-nowrap text-slate-900 tabular-nums">{formatRublesExact(user.held)}</span> —
                списать можно не больше{' '}
                <span className="font-medium whitespace-nowrap text-slate-900 tabular-nums">{formatRublesExact(availableRubles(user.balance, user.held))}</span>
              </span>
            )}
          </>
        )
      }
    >
      <form id="balance-form" onSubmit={apply} className="space-y-3">
        <Input
          label="Сумма (+ пополнение, - списание)"
          // Text, not number: a number field reads «30,5» by the browser's locale rules (Chromium made it 305).
          type="text"
          inputMode="decimal"
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          aria-invalid={unreadable || overDeduction || undefined}
          placeholder="Например, 500 или -100"
          data-autofocus
          disabled={pending}
          hint={
            unreadable ? (
              <span role="alert" data-testid="balance-amount-invalid" className="block text-sm text-red-600">
                {AMOUNT_INVALID}
              </span>
            ) : overDeduction && user ? (
              <span role="alert" data-testid="balance-over-deduction" className="block text-sm text-red-600">
                {overDeductionMessage(user.balance, user.held)}.{' '}
                <button
                  type="button"
                  onClick={() => setValue(String(-availableRubles(user.balance, user.held)))}
                  className="font-medium whitespace-nowrap text-red-700 underline underline-offset-2 hover:text-red-800"
                >
                  {user.held > 0 ? 'Списать всё доступное' : 'Списать весь остаток'}
                </button>
              </span>
            ) : preview !== null ? (
              <>
                После изменения: <span className="font-medium text-slate-700">{formatRublesExact(preview)}</span>
              </>
            ) : (
              'Положительная сумма пополняет баланс, отрицательная — списывает.'
            )
          }
        />
        <div className="space-y-1.5">
          <label htmlFor={reasonId} className="text-sm font-medium text-slate-700">
            Причина <span className="font-normal text-slate-500">(видна пользователю)</span>
          </label>
          <textarea
            id={reasonId}
            rows={2}
            maxLength={REASON_MAX_LENGTH}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            disabled={pending}
            placeholder="Например: компенсация за сбой 12 мая"
            className={textareaClasses}
            data-testid="balance-reason"
          />
          <p className="text-xs text-slate-500">
            В истории операций {user?.kind === 'team' ? 'команды' : 'пользователя'}: «Корректировка администратора{reason.trim() ? `: ${reason.trim()}` : ''}».
          </p>
        </div>
      </form>
    </Dialog>
  )
}
