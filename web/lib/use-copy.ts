// The copy buttons' behaviour: copy the text, say 'Скопировано' for 2 seconds, or show a toast
// when the browser refused.
import { useEffect, useState } from 'react'
import { toast } from '../stores/toasts'
import { copyText } from './clipboard'

export function useCopy(text: string) {
  const [copied, setCopied] = useState(false)
  useEffect(() => {
    if (!copied) return
    const timer = setTimeout(() => setCopied(false), 2000)
    return () => clearTimeout(timer)
  }, [copied])
  const copy = async () => {
    if (await copyText(text)) setCopied(true)
    else toast.error('Не удалось скопировать')
  }
  return { copied, copy }
}
