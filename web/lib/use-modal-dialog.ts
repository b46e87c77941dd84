// A modal on the native <dialog>: the browser traps focus, makes the page inert, closes on Escape
// and gives focus back to the element that opened it. This hook opens and closes the dialog with
// the `open` prop and keeps React state in charge: Esc and a click on the backdrop call `onClose`
// instead of closing the dialog behind the app's back. Spread `dialogProps` on the <dialog>.
import { type MouseEvent, type SyntheticEvent, useEffect, useRef } from 'react'

export function useModalDialog(open: boolean, onClose: () => void) {
  const ref = useRef<HTMLDialogElement>(null)

  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) {
      dialog.showModal()
      // React's autoFocus runs before showModal and is lost; honour data-autofocus instead.
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus()
    }
    if (!open && dialog.open) dialog.close()
  }, [open])

  return {
    ref,
    onCancel: (event: SyntheticEvent<HTMLDialogElement>) => {
      event.preventDefault()
      onClose()
    },
    onClick: (event: MouseEvent<HTMLDialogElement>) => {
      if (event.target === event.currentTarget) onClose()
    },
  }
}
