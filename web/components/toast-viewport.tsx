import { useEffect, useRef, useState } from 'react'
import { Link } from 'wouter'
import { cn } from '../lib/cn'
import { type Toast, useToasts } from '../stores/toasts'
import { AlertCircleIcon, CheckCircleIcon, CloseIcon, InfoIcon } from './icons'

const tone = {
  success: { icon: CheckCircleIcon, color: 'text-emerald-600', bar: 'bg-emerald-500' },
  error: { icon: AlertCircleIcon, color: 'text-red-600', bar: 'bg-red-500' },
  info: { icon: InfoIcon, color: 'text-indigo-600', bar: 'bg-indigo-500' },
} as const

function ToastItem({ item }: { item: Toast }) {
  const dismiss = useToasts((s) => s.dismiss)
  const [paused, setPaused] = useState(false)
  // Time left survives pauses: hovering a toast keeps it open until the pointer leaves.
  const remaining = useRef(item.duration)
  const startedAt = useRef(Date.now())

  // The same message shown again restarts the full time.
  // biome-ignore lint/correctness/useExhaustiveDependencies: shownAt is the trigger
  useEffect(() => {
    remaining.current = item.duration
  }, [item.shownAt, item.duration])

  // biome-ignore lint/correctness/useExhaustiveDependencies: shownAt is a trigger too: the timer restarts with the full time
  useEffect(() => {
    if (paused || item.duration <= 0) return
    startedAt.current = Date.now()
    const timer = setTimeout(() => dismiss(item.id), remaining.current)
    return () => {
      clearTimeout(timer)
      remaining.current -= Date.now() - startedAt.current
    }
  }, [paused, item.id, item.duration, item.shownAt, dismiss])

  const { icon: Icon, color } = tone[item.type]
  const action = item.action
  const actionClass = 'mt-2 inline-flex text-sm font-medium text-indigo-600 underline-offset-2 hover:text-indigo-500 hover:underline'

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: hovering only pauses the auto-dismiss timer (WCAG 2.2.1); the toast's controls are the link and the button inside
    <div
      role={item.type === 'error' ? 'alert' : 'status'}
      aria-live={item.type === 'error' ? 'assertive' : 'polite'}
      data-toast-type={item.type}
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      className="animate-toast-in pointer-events-auto flex w-full items-start gap-3 rounded-xl border border-slate-200 bg-white p-3.5 pr-2.5 shadow-lg shadow-slate-900/10"
    >
      <Icon size={18} className={cn('mt-0.5 shrink-0', color)} />
      <div className="min-w-0 flex-1">
        <p className="text-sm leading-5 break-words text-slate-800">{item.message}</p>
        {action &&
          (action.href.startsWith('/') ? (
            <Link href={action.href} className={actionClass} onClick={() => dismiss(item.id)}>
              {action.label}
            </Link>
          ) : (
            <a href={action.href} className={actionClass} onClick={() => dismiss(item.id)}>
              {action.label}
            </a>
          ))}
      </div>
      <button
        type="button"
        onClick={() => dismiss(item.id)}
        aria-label="Закрыть уведомление"
        className="-my-1 rounded-md p-1 text-slate-400 transition-colors hover:bg-slate-100 hover:text-slate-700"
      >
        <CloseIcon size={16} />
      </button>
    </div>
  )
}

/** Fixed stack of notifications in the top-right corner (full width on phones). */
export function ToastViewport() {
  const toasts = useToasts((s) => s.toasts)
  return (
    <div role="region" aria-label="Уведомления" className="pointer-events-none fixed inset-x-3 top-3 z-[100] flex flex-col gap-2 sm:inset-x-auto sm:top-4 sm:right-4 sm:w-96">
      {toasts.map((t) => (
        <ToastItem key={t.id} item={t} />
      ))}
    </div>
  )
}
