import type { ReactNode } from 'react'
import { useDocumentTitle } from '../lib/use-document-title'
import { PageHeading } from './page-heading'
import { Placeholder } from './placeholder'

export interface PlaceholderPageProps {
  title: string
  description?: string
  /** What the finished section will offer (shown under 'Раздел в разработке.'). */
  children?: ReactNode
}

/** A not-yet-built screen inside the signed-in area: real heading, honest placeholder. */
export function PlaceholderPage({ title, description, children }: PlaceholderPageProps) {
  useDocumentTitle(title)
  return (
    <>
      <PageHeading title={title} description={description} />
      <Placeholder message="Раздел в разработке.">{children}</Placeholder>
    </>
  )
}
