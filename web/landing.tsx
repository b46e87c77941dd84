import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { Router } from 'wouter'
import { PublicLayout } from './app/layouts/public-layout'
import { ToastViewport } from './components/toast-viewport'
import { LandingPage } from './features/landing/landing-page'

/**
 * The landing's router knows no other page: a link to one (the catalogue, the blog, sign-in, /app)
 * loads it from the server, which sends the SPA with that page's chunks preloaded; a link to a
 * section of the landing stays on it.
 */
const fullPageLocation = (): [string, (to: string) => void] => [
  window.location.pathname,
  (to) => {
    if (to.startsWith('/#')) window.location.hash = to.slice(1)
    else window.location.assign(to)
  },
]

const container = document.getElementById('root')
if (!container) throw new Error('#root is missing from landing.html')

createRoot(container).render(
  <StrictMode>
    <Router hook={fullPageLocation}>
      <PublicLayout>
        <LandingPage />
      </PublicLayout>
      <ToastViewport />
    </Router>
  </StrictMode>,
)
