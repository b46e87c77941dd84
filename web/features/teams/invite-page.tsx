// /invite/<token>: the link from an invitation letter. Shows the team and the role; a visitor signs
// in or registers with the invited address and comes back here (?next=), then accepts.
import { useEffect, useRef, useState } from 'react'
import { mutate } from 'swr'
import { useLocation } from 'wouter'
import { AuthBadge, AuthCard, authLinkClass } from '../../components/auth-card'
import { Button, ButtonLink } from '../../components/button'
import { AlertCircleIcon, BuildingIcon } from '../../components/icons'
import { Spinner } from '../../components/spinner'
import { ROLE_LABELS, TEAMS_KEY } from '../../lib/account'
import { errorMessage } from '../../lib/api'
import { withNext } from '../../lib/next-path'
import { useDocumentTitle } from '../../lib/use-document-title'
import { useAccountContext } from '../../stores/account'
import { useSession } from '../../stores/session'
import { toast } from '../../stores/toasts'
import { type InvitationPreview, ROLE_HINTS, teamsApi } from './teams-api'

type State = { state: 'loading' } | { state: 'ready'; invitation: InvitationPreview } | { state: 'invalid'; message: string }

export function InvitePage({ token }: { token: string }) {
  useDocumentTitle('Приглашение в команду')
  const user = useSession((s) => (s.isAuthenticated ? s.user : null))
  const setTeam = useAccountContext((s) => s.setTeam)
  const [, navigate] = useLocation()
  const [state, setState] = useState<State>({ state: 'loading' })
  const [accepting, setAccepting] = useState(false)
  const asked = useRef(false)

  useEffect(() => {
    if (asked.current) return
    asked.current = true
    teamsApi
      .lookupInvitation(token)
      .then((invitation) => setState({ state: 'ready', invitation }))
      .catch((err) => setState({ state: 'invalid', message: errorMessage(err, 'Приглашение недействительно, устарело или отозвано') }))
  }, [token])

  async function accept() {
    setAccepting(true)
    try {
      const { team } = await teamsApi.acceptInvitation(token)
      await mutate(TEAMS_KEY)
      setTeam(team.id)
      toast.success(`Вы в команде «${team.name}»`)
      navigate('/app/team')
    } catch (err) {
      toast.error(errorMessage(err, 'Не удалось принять приглашение'))
      setAccepting(false)
    }
  }

  if (state.state === 'loading')
    return (
      <div className="flex justify-center py-16">
        <Spinner label="Проверяем приглашение…" />
      </div>
    )

  if (state.state === 'invalid')
    return (
      <AuthCard
        title="Приглашение недействительно"
        badge={
          <AuthBadge tone="info">
            <AlertCircleIcon size={22} />
          </AuthBadge>
        }
        subtitle={state.message}
      >
        <ButtonLink href={user ? '/app/dashboard' : '/login'} variant="secondary" className="w-full">
          {user ? 'В панель управления' : 'Войти'}
        </ButtonLink>
      </AuthCard>
    )

  const { invitation } = state
  const here = `/invite/${token}`
  const sameAddress = user?.email.trim().toLowerCase() === invitation.email.trim().toLowerCase()
  return (
    <AuthCard
      title={`Приглашение в команду «${invitation.teamName}»`}
      badge={
        <AuthBadge tone="info">
          <BuildingIcon size={22} />
        </AuthBadge>
      }
      subtitle={
        <>
          Роль — «{ROLE_LABELS[invitation.role]}»: {ROLE_HINTS[invitation.role]}. Приглашение для <span className="font-medium break-all text-slate-700">{invitation.email}</span>.
        </>
      }
    >
      {!user ? (
        <div className="space-y-3">
          <p className="text-sm text-slate-600">Войдите или зарегистрируйтесь с этим адресом — после этого вы вернётесь сюда и примете приглашение.</p>
          <ButtonLink href={withNext('/login', here)} className="w-full">
            Войти
          </ButtonLink>
          <ButtonLink href={withNext('/register', here)} variant="secondary" className="w-full">
            Зарегистрироваться
          </ButtonLink>
        </div>
      ) : (
        <div className="space-y-3">
          {!sameAddress && (
            <p className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900" role="note">
              Вы вошли как <span className="font-medium break-all">{user.email}</span>. Принять приглашение можно только из аккаунта с адресом {invitation.email}.
            </p>
          )}
          <Button className="w-full" loading={accepting} onClick={() => void accept()}>
            Принять приглашение
          </Button>
          <p className="text-center text-sm">
            <a href="/app/dashboard" className={authLinkClass}>
              Не сейчас
            </a>
          </p>
        </div>
      )}
    </AuthCard>
  )
}
