import { useEffect } from 'react'

export const BRAND = 'AI Gateway'
export const DEFAULT_TITLE = 'AI Gateway — доступ к 300+ AI-моделям в рублях'

/** Sets document.title to '<title> — AI Gateway' while the screen is shown. */
export function useDocumentTitle(title?: string): void {
  useEffect(() => {
    document.title = title ? `${title} — ${BRAND}` : DEFAULT_TITLE
  }, [title])
}
