import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { mutate, SWRConfig } from 'swr'
import { AppRouter } from './app/router'
import { ToastViewport } from './components/toast-viewport'
import { swrConfig } from './lib/swr-config'
import { useSession } from './stores/session'

// Cached server state belongs to one account: drop it whenever the signed-in user changes,
// so the next account never sees the previous one's balance or history.
useSession.subscribe((state, previous) => {
  if (state.user?.id !== previous.user?.id) {
    // /api/health describes the installation, not the account (banners read it): keep it.
    void mutate((key) => key !== '/api/health', undefined, { revalidate: false })
  }
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
