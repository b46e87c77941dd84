import { useState } from 'react'
import { useLocation, useSearch } from 'wouter'
import { api, errorMessage } from '../../lib/api'
import { DEFAULT_AFTER_SIGN_IN, nextFromSearch } from '../../lib/next-path'
import { type AuthResult, useSession } from '../../stores/session'
import { toast } from '../../stores/toasts'

/**
 * Login and registration end alike: post the credentials, store the session, open the page the visitor was sent away from (`?next=`) or the dashboard;
 * a refusal becomes a toast with the server's message (or the page's fallback).
 */
export function useSignIn(path: '/api/auth/login' | '/api/auth/register', fallback: string) {
  const setAuth = useSession((s) => s.setAuth)
  const [, navigate] = useLocation()
  const next = nextFromSearch(useSearch())
  const [loading, setLoading] = useState(false)

  async function signIn(email: string, password: string) {
    setLoading(true)
    try {
      setAuth(await api.post<AuthResult>(path, { email: email.trim(), password }))
      navigate(next ?? DEFAULT_AFTER_SIGN_IN)
    } catch (err) {
      toast.error(errorMessage(err, fallback))
      setLoading(false)
    }
  }

  return { signIn, loading }
}
