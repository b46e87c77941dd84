import { type FormEvent, useEffect, useId, useState } from 'react'
import { mutate } from 'swr'
import { useLocation } from 'wouter'
import { Button } from '../../components/button'
import { Dialog } from '../../components/dialog'
import { FormAlert } from '../../components/form-alert'
import { Input } from '../../components/input'
import { TEAMS_KEY } from '../../lib/account'
import { errorMessage } from '../../lib/api'
import { useAccountContext } from '../../stores/account'
import { toast } from '../../stores/toasts'
import { teamsApi } from './teams-api'

/** A new team: the caller becomes its owner, and the app switches to it. */
export function CreateTeamDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const id = useId()
  const [name, setName] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [pending, setPending] = useState(false)
  const setTeam = useAccountContext((s) => s.setTeam)
  const [, navigate] = useLocation()

  useEffect(() => {
    if (!open) return
    setName('')
    setError(null)
    setPending(false)
  }, [open])

  async function submit(event: FormEvent) {
    event.preventDefault()
    if (pending) return
    if (!name.trim()) {
      setError('Введите название команды')
      return
    }
    setPending(true)
    try {
      const team = await teamsApi.create(name.trim())
      await mutate(TEAMS_KEY)
      setTeam(team.id)
      toast.success(`Команда «${team.name}» создана`)
      onClose()
      navigate('/app/team')
    } catch (err) {
      setError(errorMessage(err, 'Не удалось создать команду'))
      setPending(false)
    }
  }

  return (
    <Dialog
      open={open}
      onClose={() => {
        if (!pending) onClose()
      }}
      title="Новая команда"
      description="Общий баланс в рублях, участники с ролями и бюджеты. Вы станете владельцем команды."
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={pending}>
            Отмена
          </Button>
          <Button type="submit" form={`${id}-form`} loading={pending}>
            Создать команду
          </Button>
        </>
      }
    >
      <form id={`${id}-form`} noValidate onSubmit={submit} className="space-y-3">
        <Input
          label="Название команды"
          value={name}
          maxLength={100}
          onChange={(e) => {
            setName(e.target.value)
            if (error) setError(null)
          }}
          aria-invalid={error ? true : undefined}
          data-autofocus
        />
        {error && <FormAlert message={error} />}
      </form>
    </Dialog>
  )
}
