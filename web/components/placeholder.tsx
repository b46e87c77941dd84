import type { ReactNode } from 'react'
import { Card } from './card'
import { ClockIcon } from './icons'

export interface PlaceholderProps {
  /** Main sentence; 'Раздел в разработке.' by default. */
  message?: string
  children?: ReactNode
}

/** An honest "not built yet" panel: no invented content, just what the section will hold. */
export function Placeholder({ message = 'Раздел в разработке.', children }: PlaceholderProps) {
  return (
    <Card className="flex flex-col items-center px-6 py-14 text-center">
      <div className="mb-4 flex h-11 w-11 items-center justify-center rounded-full bg-indigo-50 text-indigo-600">
        <ClockIcon size={20} />
      </div>
      <p className="text-[15px] font-medium text-slate-800">{message}</p>
      {children && <div className="mt-2 max-w-md text-sm text-slate-500">{children}</div>}
    </Card>
  )
}
