// "Send the confirmation letter again", as the e-mail banner and the account page do it: the
// server's message in a toast, or its error for 8 seconds. `sent` stays true after a success.
import { useState } from 'react'
import { toast } from '../stores/toasts'
import { api, errorMessage } from './api'

export function useResendVerification() {
  const [sending, setSending] = useState(false)
  const [sent, setSent] = useState(false)
  async function resend() {
    setSending(true)
    try {
      const { message } = await api.post<{ message: string }>('/api/auth/resend-verification', undefined, { fallback: 'Не удалось отправить письмо' })
      setSent(true)
      toast.success(message)
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось отправить письмо'), { duration: 8000 })
    } finally {
      setSending(false)
    }
  }
  return { sending, sent, resend }
}
