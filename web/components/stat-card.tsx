import type { ReactNode } from 'react'
import { Card } from './card'

/** One headline figure: label with an icon, the value large, an optional note or link below. */
export function StatCard({ label, icon, children, note, testId }: { label: string; icon: ReactNode; children: ReactNode; note?: ReactNode; testId?: string }) {
  return (
    <Card className="flex flex-col p-4 sm:p-5">
      <p className="flex items-start gap-2 text-sm leading-5 font-medium text-slate-500">
        <span className="mt-0.5 shrink-0 text-slate-400 max-[1400px]:xl:hidden">{icon}</span>
        <span>{label}</span>
      </p>
      <div className="mt-3 text-2xl leading-8 font-semibold tracking-tight whitespace-nowrap text-slate-900 tabular-nums sm:text-[26px]" data-testid={testId}>
        {children}
      </div>
      {note && <div className="mt-1 text-xs text-slate-500">{note}</div>}
    </Card>
  )
}
