import { useState } from 'react'
import { useLocation } from 'wouter'
import { api, errorMessage } from '../../lib/api'
import { useSession, type AuthResult } from '../../stores/session'
import { toast } from '../../stores/toasts'

/**
 * Login and registration end alike: post the credentials, store the session, open the dashboard;
 * a refusal becomes a toast with the server's message (or the page's fallback).
 */
export function useSignIn(path: '/api/auth/login' | '/api/auth/register', fallback: string) {
  const setAuth = useSession((s) => s.setAuth)
  const [, navigate] = useLocation()
  const [loading, setLoading] = useState(false)

  async function signIn(email: string, password: string) {
    setLoading(true)
    try {
      setAuth(await api.post<AuthResult>(path, { email: email.trim(), password }))
      navigate('/app/dashboard')
    } catch (err) {
      toast.error(errorMessage(err, fallback))
      setLoading(false)
    }
  }

  return { signIn, loading }
}
