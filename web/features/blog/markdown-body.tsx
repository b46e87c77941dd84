import DOMPurify from 'dompurify'
import { useMemo } from 'react'
import { renderMarkdown } from '../../../src/content/markdown'

const PURIFY = {
  // the renderer adds target="_blank" rel="noopener…" to outside links; keep them
  ADD_ATTR: ['target'],
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
  ALLOW_DATA_ATTR: false,
}

/** An article body: markdown → HTML without raw HTML or unsafe URLs, then DOMPurify on top. */
export function MarkdownBody({ source }: { source: string }) {
  const html = useMemo(() => DOMPurify.sanitize(renderMarkdown(source), PURIFY), [source])
  // biome-ignore lint/security/noDangerouslySetInnerHtml: the article as HTML, sanitised by DOMPurify just above
  return <div className="article-body" data-testid="article-body" dangerouslySetInnerHTML={{ __html: html }} />
}
