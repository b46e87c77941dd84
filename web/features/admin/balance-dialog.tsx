import { useState, type FormEvent } from 'react'
import { Button } from '../../components/button'
import { Dialog } from '../../components/dialog'
import { FormAlert } from '../../components/form-alert'
import { Input } from '../../components/input'
import { errorMessage } from '../../lib/api'
import { formatRubles } from '../../../src/content/format'
import { toast } from '../../stores/toasts'
import { usersApi, type AdminUser } from './admin-api'

/** '150', '-50,5' → a number; anything that is not one → NaN (the spec: NaN is ignored). */
export const parseAmount = (raw: string) => (raw.trim() === '' ? Number.NaN : Number(raw.trim().replace(',', '.')))

/** Spec §2: the user, the current balance and a signed amount — positive tops up, negative deducts. */
export function BalanceDialog({ user, onClose, onDone }: { user: AdminUser | null; onClose: () => void; onDone: () => void }) {
  const [value, setValue] = useState('')
  const [pending, setPending] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)

  function close() {
    if (pending) return
    setValue('')
    setProblem(null)
    onClose()
  }

  async function apply(event: FormEvent) {
    event.preventDefault()
    const amount = parseAmount(value)
    if (!user || pending || Number.isNaN(amount)) return
    setPending(true)
    setProblem(null)
    try {
      await usersApi.adjustBalance(user.id, amount)
      toast.success('Баланс обновлен')
      setValue('')
      onDone()
    } catch (err) {
      toast.error('Ошибка обновления баланса')
      // The toast is the spec's; the reason (e.g. not enough money to deduct) stays beside the field.
      setProblem(errorMessage(err, 'Ошибка обновления баланса'))
    } finally {
      setPending(false)
    }
  }

  const amount = parseAmount(value)
  const preview = user && Number.isFinite(amount) && amount !== 0 ? user.balance + amount : null

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
          <Button type="submit" form="balance-form" loading={pending} disabled={value.trim() === '' || pending}>
            Применить
          </Button>
        </>
      }
      description={
        user && (
          <>
            <span className="block font-medium break-all text-slate-900">{user.email}</span>
            <span className="mt-1 block">
              Текущий баланс: <span className="font-medium whitespace-nowrap text-slate-900 tabular-nums">{formatRubles(user.balance)}</span>
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
          onChange={(e) => {
            setValue(e.target.value)
            setProblem(null)
          }}
          placeholder="Например, 500 или -100"
          data-autofocus
          disabled={pending}
          hint={
            preview !== null ? (
              <>
                После изменения: <span className={preview < 0 ? 'font-medium text-red-600' : 'font-medium text-slate-700'}>{formatRubles(preview)}</span>
                {preview < 0 && ' — списать больше остатка нельзя'}
              </>
            ) : (
              'Положительная сумма пополняет баланс, отрицательная — списывает. В истории операций пользователя появится корректировка.'
            )
          }
        />
        <FormAlert message={problem} />
      </form>
    </Dialog>
  )
}
