import { type ReactNode, useId } from 'react'
import { cn } from '../lib/cn'
import { useModalDialog } from '../lib/use-modal-dialog'
import { Button } from './button'
import { CloseIcon } from './icons'

export interface DialogProps {
  open: boolean
  /** Called on Esc, on a click outside the panel and by the close button. */
  onClose: () => void
  title: string
  description?: ReactNode
  children?: ReactNode
  /** Buttons at the bottom, right-aligned (stacked full-width on phones). */
  footer?: ReactNode
  className?: string
}

/**
 * A modal on the native <dialog>: the browser gives focus trapping, Esc and the inert page.
 * The content is rendered only while open, so nothing of a closed dialog stays in the DOM.
 * Mark the element to focus first with `data-autofocus`.
 */
export function Dialog({ open, onClose, title, description, children, footer, className }: DialogProps) {
  const dialogProps = useModalDialog(open, onClose)
  const titleId = useId()
  const descriptionId = useId()

  return (
    <dialog
      {...dialogProps}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      className={cn(
        'fixed inset-0 m-auto h-fit max-h-[calc(100dvh-2rem)] w-[calc(100%-2rem)] max-w-md overflow-y-auto',
        'rounded-2xl border border-slate-200 bg-white p-0 text-slate-900 shadow-2xl shadow-slate-900/20',
        'backdrop:bg-slate-900/40 backdrop:backdrop-blur-[1px]',
        className,
      )}
    >
      {open && (
        <div className="p-5 sm:p-6">
          <div className="flex items-start justify-between gap-4">
            <h2 id={titleId} className="text-lg leading-7 font-semibold text-slate-900">
              {title}
            </h2>
            <button
              type="button"
              onClick={onClose}
              aria-label="Закрыть"
              className="-mt-1 -mr-2 rounded-lg p-2 text-slate-400 transition-colors hover:bg-slate-100 hover:text-slate-700"
            >
              <CloseIcon size={18} />
            </button>
          </div>
          {description && (
            <div id={descriptionId} className="mt-2 text-[15px] leading-6 text-slate-600">
              {description}
            </div>
          )}
          {children && <div className="mt-4">{children}</div>}
          {footer && <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">{footer}</div>}
        </div>
      )}
    </dialog>
  )
}

export interface ConfirmDialogProps {
  open: boolean
  title: string
  /** The question, shown as the dialog's description. */
  message: ReactNode
  confirmLabel: string
  cancelLabel?: string
  /** 'danger' paints the confirm button red (deletions). */
  tone?: 'primary' | 'danger'
  /** Shows a spinner on the confirm button and keeps the dialog open. */
  loading?: boolean
  onConfirm: () => void
  onCancel: () => void
}

/** 'Are you sure?' before a destructive action. */
export function ConfirmDialog({ open, title, message, confirmLabel, cancelLabel = 'Отмена', tone = 'primary', loading = false, onConfirm, onCancel }: ConfirmDialogProps) {
  return (
    <Dialog
      open={open}
      onClose={() => {
        if (!loading) onCancel()
      }}
      title={title}
      description={message}
      footer={
        <>
          {/* a destructive action is never the default: Enter on open means "cancel" */}
          <Button variant="secondary" onClick={onCancel} disabled={loading} data-autofocus={tone === 'danger' || undefined}>
            {cancelLabel}
          </Button>
          <Button variant={tone === 'danger' ? 'danger' : 'primary'} onClick={onConfirm} loading={loading} data-autofocus={tone !== 'danger' || undefined}>
            {confirmLabel}
          </Button>
        </>
      }
    />
  )
}
