import type { SelectHTMLAttributes } from 'react'
import { cn } from '../lib/cn'
import { ChevronDownIcon } from './icons'
import { inputClasses } from './input'

export interface SelectProps extends SelectHTMLAttributes<HTMLSelectElement> {
  /** Classes of the outer box (width, margins); `className` styles the <select> itself. */
  wrapperClassName?: string
}

/**
 * The app's drop-down: a native <select> (keyboard, screen readers and the phone's own picker for
 * free) drawn like the text fields, with our chevron instead of the browser's grey arrow. Label it
 * with <label htmlFor> or aria-label, as any field.
 */
export function Select({ wrapperClassName, className, children, ...props }: SelectProps) {
  return (
    <div className={cn('relative', wrapperClassName)}>
      <select className={cn(inputClasses, 'cursor-pointer appearance-none truncate pr-9 disabled:cursor-not-allowed', className)} {...props}>
        {children}
      </select>
      <ChevronDownIcon size={16} aria-hidden="true" className="pointer-events-none absolute top-1/2 right-3 -translate-y-1/2 text-slate-500" />
    </div>
  )
}
