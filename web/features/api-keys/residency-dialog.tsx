// «Хранение данных» of an existing key: any upstream, or only those that keep data in Russia
// (PATCH /api/auth/api-keys/{id} { residency }). A team set to «Только в РФ» binds its keys anyway.
import { type FormEvent, useEffect, useId, useState } from 'react'
import { Button } from '../../components/button'
import { Dialog } from '../../components/dialog'
import { ResidencyRadios, type ResidencyRule } from '../../components/residency'
import type { ApiKey } from './keys-api'

export function KeyResidencyDialog({
  apiKey,
  teamRuOnly,
  onClose,
  onSave,
}: {
  apiKey: ApiKey | null
  teamRuOnly: boolean
  onClose: () => void
  /** Resolves true when saved (the dialog closes), false to keep it open. */
  onSave: (residency: ResidencyRule) => Promise<boolean>
}) {
  const id = useId()
  const [value, setValue] = useState<ResidencyRule>('any')
  const [pending, setPending] = useState(false)

  useEffect(() => {
    if (!apiKey) return
    setValue(apiKey.residency)
    setPending(false)
  }, [apiKey])

  async function submit(event?: FormEvent) {
    event?.preventDefault()
    if (pending || !apiKey) return
    if (value === apiKey.residency) {
      onClose()
      return
    }
    setPending(true)
    if (!(await onSave(value))) setPending(false)
  }

  return (
    <Dialog
      open={apiKey !== null}
      onClose={() => {
        if (!pending) onClose()
      }}
      title="Хранение данных"
      className="sm:max-w-lg"
      description={
        apiKey && (
          <>
            Куда ключ «<span className="break-words">{apiKey.name}</span>» может отправлять запросы. С «Только в РФ» запрос к модели без провайдера в России получит ошибку 403
            data_residency_violation, а /v1/models покажет только подходящие модели.
          </>
        )
      }
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={pending}>
            Отмена
          </Button>
          <Button type="submit" form={`${id}-form`} loading={pending}>
            Сохранить
          </Button>
        </>
      }
    >
      <form id={`${id}-form`} noValidate onSubmit={submit} className="space-y-3">
        <ResidencyRadios legend="Провайдеры для запросов ключа" value={value} onChange={setValue} />
        {teamRuOnly && <p className="text-xs text-slate-500">Команда разрешает только провайдеров в России: для ключей команды это действует при любом выборе здесь.</p>}
      </form>
    </Dialog>
  )
}
