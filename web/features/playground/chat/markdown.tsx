// A model's reply as markdown: code blocks with their language, tables, lists — and nothing that
// runs. Raw HTML in the reply is shown as text, links keep only http(s)/mailto, and DOMPurify
// cleans the result once more. Replies are untrusted input (a prompt can make a model write HTML).
import DOMPurify from 'dompurify'
import { Marked, type Tokens } from 'marked'
import { type MouseEvent, memo, useMemo } from 'react'
import { copyText } from '../../../lib/clipboard'
import { cn } from '../../../lib/cn'
import { toast } from '../../../stores/toasts'

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

function safeHref(raw: string): string | null {
  const squashed = raw
    .trim()
    // biome-ignore lint/suspicious/noControlCharactersInRegex: what a browser strips from a scheme
    .replace(/[\u0000-\u0020\u007f-\u009f]/g, '')
    .toLowerCase()
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(squashed)?.[1]
  if (!scheme) return squashed.startsWith('//') ? null : raw.trim()
  return ['http', 'https', 'mailto'].includes(scheme) ? raw.trim() : null
}

/**
 * Where a code block's copy button goes. DOMPurify forbids buttons (a reply must not bring its own),
 * so the renderer leaves this empty marker and the button is put in after cleaning. A reply cannot
 * forge the marker: raw HTML in it is escaped before DOMPurify sees it.
 */
const COPY_SLOT = '<span class="copy-slot"></span>'
export const COPY_CODE_LABEL = 'Копировать код'
const COPY_BUTTON = `<button type="button" data-copy-code="" aria-label="${COPY_CODE_LABEL}" class="code-copy">Копировать</button>`

const chatMarkdown = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text)
    },
    link({ href, tokens }: Tokens.Link) {
      const inner = this.parser.parseInline(tokens)
      const url = safeHref(href)
      return url ? `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer nofollow">${inner}</a>` : inner
    },
    // Pictures inside a reply are shown as links: a reply must not make the browser fetch anything.
    image({ href, text }: Tokens.Image) {
      const url = safeHref(href)
      return url ? `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer nofollow">${escapeHtml(text || url)}</a>` : escapeHtml(text)
    },
    // The <pre> scrolls sideways on a phone: focusable, so the keyboard can scroll it too.
    code({ text, lang }: Tokens.Code) {
      const language = (lang ?? '').match(/^[\w+#.-]{1,20}/)?.[0] ?? ''
      const label = `<div class="code-lang"><span>${escapeHtml(language || 'код')}</span>${COPY_SLOT}</div>`
      return `<div class="code-block">${label}<pre tabindex="0"><code${language ? ` class="language-${escapeHtml(language)}"` : ''}>${escapeHtml(text)}</code></pre></div>`
    },
  },
})

const PURIFY = { ADD_ATTR: ['target'], FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'img'], ALLOW_DATA_ATTR: false }

export function renderReply(source: string): string {
  const clean = DOMPurify.sanitize(chatMarkdown.parse(source, { async: false }) as string, PURIFY)
  return clean.replaceAll(COPY_SLOT, COPY_BUTTON)
}

/** One click handler for every code block's button: copies its code, says so for 2 s. */
async function onCopyClick(event: MouseEvent<HTMLDivElement>) {
  const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-copy-code]')
  const code = button?.closest('.code-block')?.querySelector('pre code')
  if (!button || !code) return
  if (!(await copyText(code.textContent ?? ''))) {
    toast.error('Не удалось скопировать')
    return
  }
  // The name changes with the text: a name that no longer contains what is shown fails WCAG 2.5.3.
  button.textContent = 'Скопировано'
  button.setAttribute('aria-label', 'Скопировано')
  setTimeout(() => {
    button.textContent = 'Копировать'
    button.setAttribute('aria-label', COPY_CODE_LABEL)
  }, 2000)
}

const proseClasses = [
  'min-w-0 text-[15px] leading-7 break-words text-slate-800',
  '[&>*:first-child]:mt-0 [&>*:last-child]:mb-0',
  '[&_p]:my-2.5 [&_ul]:my-2.5 [&_ol]:my-2.5 [&_ul]:list-disc [&_ol]:list-decimal [&_ul]:pl-6 [&_ol]:pl-6 [&_li]:my-1',
  '[&_h1]:mt-4 [&_h1]:mb-2 [&_h1]:text-lg [&_h1]:font-semibold [&_h2]:mt-4 [&_h2]:mb-2 [&_h2]:text-base [&_h2]:font-semibold [&_h3]:mt-3 [&_h3]:mb-1.5 [&_h3]:font-semibold',
  '[&_a]:font-medium [&_a]:text-indigo-700 [&_a]:underline [&_a]:underline-offset-2',
  '[&_blockquote]:my-2.5 [&_blockquote]:border-l-3 [&_blockquote]:border-slate-300 [&_blockquote]:pl-3 [&_blockquote]:text-slate-600',
  '[&_:not(pre)>code]:rounded [&_:not(pre)>code]:bg-slate-100 [&_:not(pre)>code]:px-1.5 [&_:not(pre)>code]:py-0.5 [&_:not(pre)>code]:font-mono [&_:not(pre)>code]:text-[0.85em] [&_:not(pre)>code]:text-slate-800',
  '[&_.code-block]:my-3 [&_.code-block]:overflow-hidden [&_.code-block]:rounded-lg [&_.code-block]:bg-slate-900',
  '[&_.code-lang]:flex [&_.code-lang]:items-center [&_.code-lang]:justify-between [&_.code-lang]:border-b [&_.code-lang]:border-white/10 [&_.code-lang]:py-1 [&_.code-lang]:pr-1 [&_.code-lang]:pl-3 [&_.code-lang]:font-mono [&_.code-lang]:text-xs [&_.code-lang]:text-slate-300',
  '[&_.code-copy]:rounded [&_.code-copy]:px-2 [&_.code-copy]:py-1 [&_.code-copy]:font-sans [&_.code-copy]:font-medium [&_.code-copy]:text-slate-200 [&_.code-copy:hover]:bg-white/10 [&_.code-copy:focus-visible]:outline-2 [&_.code-copy:focus-visible]:outline-indigo-400',
  '[&_pre]:overflow-x-auto [&_pre]:p-3 [&_pre]:font-mono [&_pre]:text-[13px] [&_pre]:leading-6 [&_pre]:text-slate-100',
  '[&_table]:my-3 [&_table]:block [&_table]:overflow-x-auto [&_table]:text-sm [&_th]:border [&_th]:border-slate-200 [&_th]:bg-slate-50 [&_th]:px-2.5 [&_th]:py-1.5 [&_th]:text-left [&_td]:border [&_td]:border-slate-200 [&_td]:px-2.5 [&_td]:py-1.5',
  '[&_hr]:my-4 [&_hr]:border-slate-200',
].join(' ')

/** Re-parsed only when the text changes (each streamed token), never on unrelated renders. */
export const Markdown = memo(function Markdown({ source, className }: { source: string; className?: string }) {
  const html = useMemo(() => renderReply(source), [source])
  // biome-ignore lint/a11y/useKeyWithClickEvents: delegates clicks of the real <button>s inside (keyboard activation reaches them as clicks)
  // biome-ignore lint/a11y/noStaticElementInteractions: the same delegation; the div itself is not interactive
  // biome-ignore lint/security/noDangerouslySetInnerHtml: renderReply's output, sanitised by DOMPurify
  return <div className={cn(proseClasses, className)} data-testid="markdown" onClick={(e) => void onCopyClick(e)} dangerouslySetInnerHTML={{ __html: html }} />
})
