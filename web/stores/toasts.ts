import { create } from 'zustand'

export type ToastType = 'success' | 'error' | 'info'

export interface ToastAction {
  label: string
  /** An in-app path (/app/billing) or an absolute URL. */
  href: string
}

export interface Toast {
  id: number
  type: ToastType
  message: string
  /** milliseconds before it disappears by itself */
  duration: number
  action?: ToastAction
  /** bumped when the same message is shown again: the viewport restarts its timer */
  shownAt: number
}

export interface ToastOptions {
  duration?: number
  action?: ToastAction
}

export const DEFAULT_TOAST_DURATION = 4000
const MAX_TOASTS = 5

interface ToastState {
  toasts: Toast[]
  show: (type: ToastType, message: string, options?: ToastOptions) => number
  dismiss: (id: number) => void
  clear: () => void
}

let nextId = 1
let shows = 0

export const useToasts = create<ToastState>()((set, get) => ({
  toasts: [],
  show: (type, message, options = {}) => {
    const duration = options.duration ?? DEFAULT_TOAST_DURATION
    // The same words while they are on screen: one toast, refreshed (moved on top, its time
    // restarted), never a stack of identical ones (issue 29: six «Недостаточно средств» at once).
    const same = get().toasts.find((t) => t.type === type && t.message === message && t.action?.href === options.action?.href)
    if (same) {
      const refreshed: Toast = { ...same, duration: Math.max(same.duration, duration), action: options.action ?? same.action, shownAt: ++shows }
      set((state) => ({ toasts: [refreshed, ...state.toasts.filter((t) => t.id !== same.id)] }))
      return same.id
    }
    const id = nextId++
    const item: Toast = { id, type, message, duration, action: options.action, shownAt: ++shows }
    // Newest on top; the oldest fall off so a burst of errors cannot cover the page.
    set((state) => ({ toasts: [item, ...state.toasts].slice(0, MAX_TOASTS) }))
    return id
  },
  dismiss: (id) => set((state) => ({ toasts: state.toasts.filter((t) => t.id !== id) })),
  clear: () => set({ toasts: [] }),
}))

/** Imperative helpers: `toast.error('Ошибка входа')`, `toast.success(msg, { duration: 10000 })`. */
export const toast = {
  success: (message: string, options?: ToastOptions) => useToasts.getState().show('success', message, options),
  error: (message: string, options?: ToastOptions) => useToasts.getState().show('error', message, options),
  info: (message: string, options?: ToastOptions) => useToasts.getState().show('info', message, options),
  dismiss: (id: number) => useToasts.getState().dismiss(id),
}
