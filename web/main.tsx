import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { mutate, SWRConfig } from 'swr'
import { AppRouter } from './app/router'
import { ToastViewport } from './components/toast-viewport'
import { swrConfig } from './lib/swr-config'
import { useAccountContext } from './stores/account'
import { useSession } from './stores/session'

/** /api/health describes the installation, not the account (banners read it): it stays cached. */
const accountData = (key: unknown) => key !== '/api/health'

// Cached server state belongs to one account: drop it whenever the signed-in user changes,
// so the next account never sees the previous one's balance or history — nor acts in their team.
useSession.subscribe((state, previous) => {
  if (state.user?.id !== previous.user?.id) {
    if (previous.user) useAccountContext.getState().setTeam(null)
    void mutate(accountData, undefined, { revalidate: false })
  }
})

// Switching between the personal account and a team: every cached answer was for the other
// account. Clearing it also discards answers still in flight (SWR ignores a fetch older than a
// mutation); the screens on display ask again, now with the new X-Team-Id.
useAccountContext.subscribe((state, previous) => {
  if (state.teamId !== previous.teamId) void mutate(accountData, undefined, { revalidate: true })
})

const container = document.getElementById('root')
if (!container) throw new Error('#root is missing from index.html')

createRoot(container).render(
  <StrictMode>
    <SWRConfig value={swrConfig}>
      <AppRouter />
      <ToastViewport />
    </SWRConfig>
  </StrictMode>,
)
