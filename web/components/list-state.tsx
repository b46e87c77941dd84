import type { ReactNode } from 'react'
import { Button } from './button'

/** Placeholder rows while a list loads. */
export function ListSkeleton({ rows = 3 }: { rows?: number }) {
  return (
    <ul className="divide-y divide-slate-100" aria-hidden="true">
      {Array.from({ length: rows }, (_, i) => (
        <li key={i} className="flex items-center justify-between py-3">
          <span className="h-4 w-40 animate-pulse rounded bg-slate-100" />
          <span className="h-4 w-16 animate-pulse rounded bg-slate-100" />
        </li>
      ))}
    </ul>
  )
}

/** A failed load with a way to try again. */
export function LoadError({ message, retrying, onRetry }: { message: string; retrying?: boolean; onRetry: () => void }) {
  return (
    <div className="py-6 text-center text-sm text-slate-500">
      <p role="alert">{message}</p>
      <Button variant="secondary" size="sm" className="mt-3" loading={retrying} onClick={onRetry}>
        Повторить
      </Button>
    </div>
  )
}

/** «Показать ещё» under a list read page by page (useSWRInfinite): `loading` while the next page comes. */
export function ShowMore({ loading, onClick }: { loading: boolean; onClick: () => void }) {
  return (
    <Button variant="secondary" size="sm" className="mt-3" loading={loading} onClick={onClick}>
      Показать ещё
    </Button>
  )
}

export function EmptyNote({ children }: { children: ReactNode }) {
  return <p className="py-6 text-center text-sm text-slate-500">{children}</p>
}
