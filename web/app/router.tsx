import { lazy, type ReactNode, Suspense, useEffect, useRef } from 'react'
import { Redirect, Route, Switch, useLocation } from 'wouter'
import { PageSpinner } from '../components/spinner'
import { applyRouteHead } from '../lib/head'
import { RequireAuth } from './guards'
import { AuthLayout } from './layouts/auth-layout'
import { PublicLayout } from './layouts/public-layout'

// Every screen is a chunk loaded when opened (the /app area as one chunk, see app-area.tsx); a
// visitor who starts on the landing gets it from its own light entry (web/landing-main.tsx), the
// router shows it when the SPA comes back to '/'.
const named = <K extends string, P extends object>(load: () => Promise<Record<K, (props: P) => ReactNode>>, name: K) => lazy(() => load().then((m) => ({ default: m[name] })))

const AppArea = lazy(() => import('./app-area'))
const LandingPage = named(() => import('../features/landing/landing-page'), 'LandingPage')
const LoginPage = named(() => import('../features/auth/login-page'), 'LoginPage')
const RegisterPage = named(() => import('../features/auth/register-page'), 'RegisterPage')
const ForgotPasswordPage = named(() => import('../features/auth/forgot-password-page'), 'ForgotPasswordPage')
const ResetPasswordPage = named(() => import('../features/auth/reset-password-page'), 'ResetPasswordPage')
const VerifyEmailPage = named(() => import('../features/auth/verify-email-page'), 'VerifyEmailPage')
const BlogListPage = named(() => import('../features/blog/blog-list-page'), 'BlogListPage')
const BlogPostPage = named(() => import('../features/blog/blog-post-page'), 'BlogPostPage')
const PrivacyPolicyPage = named(() => import('../features/legal/legal-page'), 'PrivacyPolicyPage')
const TermsOfServicePage = named(() => import('../features/legal/legal-page'), 'TermsOfServicePage')
const PublicOfferPage = named(() => import('../features/legal/legal-page'), 'PublicOfferPage')
const RefundPolicyPage = named(() => import('../features/legal/legal-page'), 'RefundPolicyPage')
const ServicesPage = named(() => import('../features/services/services-page'), 'ServicesPage')
const StatusPage = named(() => import('../features/status/status-page'), 'StatusPage')
const PublicDocsPage = named(() => import('../features/docs/docs-page'), 'PublicDocsPage')
const PublicModelsPage = named(() => import('../features/models/public-catalogue'), 'PublicModelsPage')
const PublicModelPage = named(() => import('../features/models/public-catalogue'), 'PublicModelPage')
const TestPaymentPage = named(() => import('../features/payments/test-payment-page'), 'TestPaymentPage')
const InvitePage = named(() => import('../features/teams/invite-page'), 'InvitePage')
const AuthorizePage = named(() => import('../features/oauth/authorize-page'), 'AuthorizePage')

function Public({ children }: { children: ReactNode }) {
  return (
    <PublicLayout>
      <Suspense fallback={<PageSpinner />}>{children}</Suspense>
    </PublicLayout>
  )
}

function Auth({ children }: { children: ReactNode }) {
  return (
    <AuthLayout>
      <Suspense fallback={<PageSpinner />}>{children}</Suspense>
    </AuthLayout>
  )
}

/** New page: top of the page, unless the address points at a section (#id) the page scrolls to. */
function ScrollToTop() {
  const [location] = useLocation()
  // biome-ignore lint/correctness/useExhaustiveDependencies: location is the trigger: each new page starts at the top
  useEffect(() => {
    if (!window.location.hash) window.scrollTo(0, 0)
  }, [location])
  return null
}

/**
 * Title, description, canonical link and social tags of the screen shown. The server sent the
 * right ones with the first page, so only later navigations change them; a blog post then
 * replaces them with its own once it has loaded.
 */
function RouteMeta() {
  const [location] = useLocation()
  const first = useRef(true)
  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    applyRouteHead(location)
  }, [location])
  return null
}

export function AppRouter() {
  return (
    <>
      <ScrollToTop />
      <RouteMeta />
      <Switch>
        <Route path="/">
          <Public>
            <LandingPage />
          </Public>
        </Route>
        <Route path="/login">
          <Auth>
            <LoginPage />
          </Auth>
        </Route>
        <Route path="/register">
          <Auth>
            <RegisterPage />
          </Auth>
        </Route>
        <Route path="/forgot-password">
          <Auth>
            <ForgotPasswordPage />
          </Auth>
        </Route>
        <Route path="/reset-password/:token">
          {(params) => (
            <Auth>
              <ResetPasswordPage key={params.token} token={params.token} />
            </Auth>
          )}
        </Route>
        <Route path="/verify-email/:token">
          {(params) => (
            <Auth>
              <VerifyEmailPage key={params.token} token={params.token} />
            </Auth>
          )}
        </Route>
        {/* the link of an invitation letter: signing in or up from it returns here (?next=) */}
        <Route path="/invite/:token">
          {(params) => (
            <Auth>
              <InvitePage key={params.token} token={params.token} />
            </Auth>
          )}
        </Route>
        {/* «Войти через AI Gateway» (OAuth PKCE): an app's request for a key; a visitor signs in first (?next=) */}
        <Route path="/auth/authorize">
          <Auth>
            <AuthorizePage />
          </Auth>
        </Route>
        <Route path="/blog">
          <Public>
            <BlogListPage />
          </Public>
        </Route>
        <Route path="/blog/:slug">
          {(params) => (
            <Public>
              <BlogPostPage key={params.slug} slug={params.slug} />
            </Public>
          )}
        </Route>
        <Route path="/models">
          <Public>
            <PublicModelsPage />
          </Public>
        </Route>
        <Route path="/models/*">
          <Public>
            <PublicModelPage />
          </Public>
        </Route>
        <Route path="/docs">
          <Public>
            <PublicDocsPage />
          </Public>
        </Route>
        <Route path="/privacy-policy">
          <Public>
            <PrivacyPolicyPage />
          </Public>
        </Route>
        <Route path="/terms-of-service">
          <Public>
            <TermsOfServicePage />
          </Public>
        </Route>
        <Route path="/public-offer">
          <Public>
            <PublicOfferPage />
          </Public>
        </Route>
        <Route path="/refund-policy">
          <Public>
            <RefundPolicyPage />
          </Public>
        </Route>
        <Route path="/services">
          <Public>
            <ServicesPage />
          </Public>
        </Route>
        <Route path="/status">
          <Public>
            <StatusPage />
          </Public>
        </Route>
        {/* the built-in card-payment stand-in: opened by the redirect, so no sign-in is required */}
        <Route path="/pay/test/:id">
          {(params) => (
            <Auth>
              <TestPaymentPage key={params.id} id={params.id} />
            </Auth>
          )}
        </Route>
        <Route path="/app">
          <Redirect to="/app/dashboard" replace />
        </Route>
        <Route path="/app/*">
          <RequireAuth>
            <Suspense
              fallback={
                <div className="flex min-h-dvh items-center justify-center">
                  <PageSpinner />
                </div>
              }
            >
              <AppArea />
            </Suspense>
          </RequireAuth>
        </Route>
        <Route>
          <Redirect to="/" replace />
        </Route>
      </Switch>
    </>
  )
}
