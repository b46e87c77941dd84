import { useState } from 'react'
import { errorMessage } from '../lib/api'
import { EXPORT_FALLBACK } from '../lib/download'
import { toast } from '../stores/toasts'
import { Button } from './button'
import { FileTextIcon } from './icons'

/** «Скачать CSV»: runs the download, a failure becomes one toast. */
export function ExportButton({ download, disabled }: { download: () => Promise<void>; disabled: boolean }) {
  const [pending, setPending] = useState(false)
  async function run() {
    setPending(true)
    try {
      await download()
    } catch (err) {
      toast.error(errorMessage(err, EXPORT_FALLBACK))
    } finally {
      setPending(false)
    }
  }
  return (
    <Button variant="secondary" loading={pending} disabled={disabled} onClick={() => void run()}>
      {!pending && <FileTextIcon size={16} className="text-slate-500" />}
      Скачать CSV
    </Button>
  )
}
