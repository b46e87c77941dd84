// A panel that slides in from the right: the Playground's model and settings on a phone, a request's
// detail in the activity log. Built on the native <dialog> like dialog.tsx (lib/use-modal-dialog.ts),
// so the browser traps focus, makes the page inert, closes on Escape and gives focus back to the
// button that opened it.
import { type ReactNode, useId } from 'react'
import { useModalDialog } from '../lib/use-modal-dialog'
import { CloseIcon } from './icons'

export function Drawer({ open, onClose, title, children }: { open: boolean; onClose: () => void; title: string; children: ReactNode }) {
  const dialogProps = useModalDialog(open, onClose)
  const titleId = useId()

  return (
    <dialog
      {...dialogProps}
      aria-labelledby={titleId}
      data-testid="settings-drawer"
      onClose={onClose}
      className="fixed inset-y-0 right-0 left-auto m-0 h-dvh max-h-none w-[min(400px,92vw)] max-w-none overflow-y-auto border-l border-slate-200 bg-slate-50 p-0 text-slate-900 shadow-2xl backdrop:bg-slate-900/40"
    >
      {open && (
        <div className="min-h-full">
          <div className="sticky top-0 z-10 flex items-center justify-between gap-3 border-b border-slate-200 bg-white px-4 py-3">
            <h2 id={titleId} className="text-base font-semibold text-slate-900">
              {title}
            </h2>
            <button type="button" onClick={onClose} aria-label="Закрыть" className="-mr-2 rounded-lg p-2 text-slate-500 transition-colors hover:bg-slate-100 hover:text-slate-800">
              <CloseIcon size={18} />
            </button>
          </div>
          <div className="space-y-4 p-4">{children}</div>
        </div>
      )}
    </dialog>
  )
}
