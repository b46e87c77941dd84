import { Link } from 'wouter'
import { cn } from '../lib/cn'

export function LogoMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={cn('h-7 w-7 shrink-0', className)} aria-hidden="true">
      <rect width="32" height="32" rx="8" className="fill-indigo-600" />
      <path d="M9 22.5 14.6 9h2.8L23 22.5h-3l-1.2-3.1h-5.6l-1.2 3.1H9Zm5.1-5.6h3.8L16 11.8l-1.9 5.1Z" fill="#fff" />
    </svg>
  )
}

/** The brand: mark + 'AI Gateway', linking home (or to `href`). */
export function Logo({ href = '/', className }: { href?: string; className?: string }) {
  return (
    <Link href={href} className={cn('inline-flex shrink-0 items-center gap-2.5 text-[15px] font-semibold tracking-tight whitespace-nowrap text-slate-900', className)}>
      <LogoMark />
      <span>AI Gateway</span>
    </Link>
  )
}
