import { AlertCircleIcon } from './icons'

/** The inline validation message of a form (role="alert", announced when it appears). */
export function FormAlert({ message }: { message: string | null | undefined }) {
  if (!message) return null
  return (
    <div role="alert" className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2.5 text-sm text-red-700">
      <AlertCircleIcon size={16} className="mt-0.5 shrink-0" />
      <span>{message}</span>
    </div>
  )
}
