import { type FormEvent, useState } from 'react'
import { formatRublesExact } from '../../../src/content/format'
import { Button } from '../../components/button'
import { Dialog } from '../../components/dialog'
import { Input } from '../../components/input'
import { errorMessage } from '../../lib/api'
import { toast } from '../../stores/toasts'
import { teamsAdminApi, usersApi } from './admin-api'

/** Whose balance: a user's (the spec's dialog) or a team's; `label` is the e-mail or the team's name. */
export type BalanceTarget = { kind: 'user' | 'team'; id: string; label: string; balance: number }

/** '150', '-50,5' → a number; anything that is not one → NaN (the spec: NaN is ignored). */
export const parseAmount = (raw: string) => (raw.trim() === '' ? Number.NaN : Number(raw.trim().replace(',', '.')))

/** Micro-rubles of a ruble amount: the balance check in integers, as the server does it (no float drift). */
const toMicros = (rubles: number) => Math.round(rubles * 1_000_000)

/** The inline reason, worded as the server's refusal so either source reads the same. */
export const overDeductionMessage = (balance: number) => `Нельзя списать больше, чем есть на балансе: сейчас на нём ${formatRublesExact(balance)}`

/** Spec §2: the user (or a team), the current balance and a signed amount — positive tops up, negative deducts. */
export function BalanceDialog({ user, onClose, onDone }: { user: BalanceTarget | null; onClose: () => void; onDone: () => void }) {
  const [value, setValue] = useState('')
  const [pending, setPending] = useState(false)

  function close() {
    if (pending) return
    setValue('')
    onClose()
  }

  async function apply(event: FormEvent) {
    event.preventDefault()
    const amount = parseAmount(value)
    if (!user || pending || Number.isNaN(amount) || overDeduction) return
    setPending(true)
    try {
      await (user.kind === 'team' ? teamsAdminApi : usersApi).adjustBalance(user.id, amount)
      toast.success('Баланс обновлен')
      setValue('')
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
  const preview = user && Number.isFinite(amount) && amount !== 0 ? user.balance + amount : null
  // Deducting more than there is: refused before it is sent, so «Применить» stays off.
  const overDeduction = user !== null && Number.isFinite(amount) && toMicros(user.balance) + toMicros(amount) < 0

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
          <Button type="submit" form="balance-form" loading={pending} disabled={value.trim() === '' || pending || overDeduction}>
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
          </>
        )
      }
    >
      <form id="balance-form" onSubmit={apply} className="space-y-3">
        <Input
          label="Сумма (+ пополнение, - списание)"
          type="number"
          step="any"
          inputMode="decimal"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          aria-invalid={overDeduction || undefined}
          placeholder="Например, 500 или -100"
          data-autofocus
          disabled={pending}
          hint={
            overDeduction && user ? (
              <span role="alert" data-testid="balance-over-deduction" className="block text-sm text-red-600">
                {overDeductionMessage(user.balance)}.{' '}
                <button
                  type="button"
                  onClick={() => setValue(String(-user.balance))}
                  className="font-medium whitespace-nowrap text-red-700 underline underline-offset-2 hover:text-red-800"
                >
                  Списать весь остаток
                </button>
              </span>
            ) : preview !== null ? (
              <>
                После изменения: <span className="font-medium text-slate-700">{formatRublesExact(preview)}</span>
              </>
            ) : (
              `Положительная сумма пополняет баланс, отрицательная — списывает. В истории операций ${user?.kind === 'team' ? 'команды' : 'пользователя'} появится корректировка.`
            )
          }
        />
      </form>
    </Dialog>
  )
}
