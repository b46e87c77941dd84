import type { ReactNode } from 'react'

export interface PageHeadingProps {
  title: string
  description?: ReactNode
  /** Buttons at the right end of the heading row. */
  actions?: ReactNode
}

export function PageHeading({ title, description, actions }: PageHeadingProps) {
  return (
    <div className="mb-6 flex flex-col gap-4 sm:mb-8 sm:flex-row sm:items-end sm:justify-between">
      <div className="min-w-0">
        <h1 className="text-2xl font-semibold tracking-tight break-words text-slate-900 sm:text-[28px]">{title}</h1>
        {description && <p className="mt-1.5 text-[15px] text-slate-500">{description}</p>}
      </div>
      {actions && <div className="flex shrink-0 flex-wrap gap-2">{actions}</div>}
    </div>
  )
}
