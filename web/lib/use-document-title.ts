import { useEffect } from 'react'
import { DEFAULT_TITLE, withBrand } from '../../src/content/seo'
import { BRAND } from '../../src/content/terms'

export { BRAND, DEFAULT_TITLE }

/** Sets document.title to '<title> — AI Gateway' (the brand once, see withBrand) while the screen is shown. */
export function useDocumentTitle(title?: string): void {
  useEffect(() => {
    document.title = title ? withBrand(title) : DEFAULT_TITLE
  }, [title])
}
