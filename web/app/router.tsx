import { useEffect } from 'react'
import { Redirect, Route, Switch, useLocation } from 'wouter'
import { AdminBlogPage } from '../features/admin/admin-blog-page'
import { AdminDashboardPage } from '../features/admin/admin-dashboard-page'
import { AdminUsersPage } from '../features/admin/admin-users-page'
import { ApiKeysPage } from '../features/api-keys/api-keys-page'
import { ForgotPasswordPage } from '../features/auth/forgot-password-page'
import { LoginPage } from '../features/auth/login-page'
import { RegisterPage } from '../features/auth/register-page'
import { ResetPasswordPage } from '../features/auth/reset-password-page'
import { BillingPage } from '../features/billing/billing-page'
import { BlogListPage } from '../features/blog/blog-list-page'
import { BlogPostPage } from '../features/blog/blog-post-page'
import { DashboardPage } from '../features/dashboard/dashboard-page'
import { DocsPage } from '../features/docs/docs-page'
import { LandingPage } from '../features/landing/landing-page'
import { PrivacyPolicyPage } from '../features/legal/privacy-policy-page'
import { PublicOfferPage } from '../features/legal/public-offer-page'
import { RefundPolicyPage } from '../features/legal/refund-policy-page'
import { TermsOfServicePage } from '../features/legal/terms-of-service-page'
import { ModelsPage } from '../features/models/models-page'
import { TestPaymentPage } from '../features/payments/test-payment-page'
import { PlaygroundPage } from '../features/playground/playground-page'
import { ServicesPage } from '../features/services/services-page'
import { UsagePage } from '../features/usage/usage-page'
import { RequireAdmin, RequireAuth } from './guards'
import { AppLayout } from './layouts/app-layout'
import { AuthLayout } from './layouts/auth-layout'
import { PublicLayout } from './layouts/public-layout'

/** Routes inside the signed-in layout; the layout stays mounted while these change. */
function AppRoutes() {
  return (
    <Switch>
      <Route path="/app/dashboard" component={DashboardPage} />
      <Route path="/app/playground" component={PlaygroundPage} />
      <Route path="/app/models" component={ModelsPage} />
      <Route path="/app/api-keys" component={ApiKeysPage} />
      <Route path="/app/billing" component={BillingPage} />
      <Route path="/app/usage" component={UsagePage} />
      <Route path="/app/docs" component={DocsPage} />
      <Route path="/app/admin">
        <RequireAdmin>
          <AdminDashboardPage />
        </RequireAdmin>
      </Route>
      <Route path="/app/admin/users">
        <RequireAdmin>
          <AdminUsersPage />
        </RequireAdmin>
      </Route>
      <Route path="/app/admin/blog">
        <RequireAdmin>
          <AdminBlogPage />
        </RequireAdmin>
      </Route>
      <Route>
        <Redirect to="/" replace />
      </Route>
    </Switch>
  )
}

function ScrollToTop() {
  const [location] = useLocation()
  useEffect(() => {
    window.scrollTo(0, 0)
  }, [location])
  return null
}

export function AppRouter() {
  return (
    <>
      <ScrollToTop />
      <Switch>
        <Route path="/">
          <PublicLayout>
            <LandingPage />
          </PublicLayout>
        </Route>
        <Route path="/login">
          <AuthLayout>
            <LoginPage />
          </AuthLayout>
        </Route>
        <Route path="/register">
          <AuthLayout>
            <RegisterPage />
          </AuthLayout>
        </Route>
        <Route path="/forgot-password">
          <AuthLayout>
            <ForgotPasswordPage />
          </AuthLayout>
        </Route>
        <Route path="/reset-password/:token">
          {(params) => (
            <AuthLayout>
              <ResetPasswordPage key={params.token} token={params.token} />
            </AuthLayout>
          )}
        </Route>
        <Route path="/blog">
          <PublicLayout>
            <BlogListPage />
          </PublicLayout>
        </Route>
        <Route path="/blog/:slug">
          {(params) => (
            <PublicLayout>
              <BlogPostPage key={params.slug} slug={params.slug} />
            </PublicLayout>
          )}
        </Route>
        <Route path="/privacy-policy">
          <PublicLayout>
            <PrivacyPolicyPage />
          </PublicLayout>
        </Route>
        <Route path="/terms-of-service">
          <PublicLayout>
            <TermsOfServicePage />
          </PublicLayout>
        </Route>
        <Route path="/public-offer">
          <PublicLayout>
            <PublicOfferPage />
          </PublicLayout>
        </Route>
        <Route path="/refund-policy">
          <PublicLayout>
            <RefundPolicyPage />
          </PublicLayout>
        </Route>
        <Route path="/services">
          <PublicLayout>
            <ServicesPage />
          </PublicLayout>
        </Route>
        {/* the built-in card-payment stand-in: opened by the redirect, so no sign-in is required */}
        <Route path="/pay/test/:id">
          {(params) => (
            <AuthLayout>
              <TestPaymentPage key={params.id} id={params.id} />
            </AuthLayout>
          )}
        </Route>
        <Route path="/app">
          <Redirect to="/app/dashboard" replace />
        </Route>
        <Route path="/app/*">
          <RequireAuth>
            <AppLayout>
              <AppRoutes />
            </AppLayout>
          </RequireAuth>
        </Route>
        <Route>
          <Redirect to="/" replace />
        </Route>
      </Switch>
    </>
  )
}
