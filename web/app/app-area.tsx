// The signed-in area (/app/*), loaded on demand: the landing and the other public pages never
// download this code. Add new /app screens here.
import { Redirect, Route, Switch } from 'wouter'
import { AccountPage } from '../features/account/account-page'
import { AdminBlogPage } from '../features/admin/admin-blog-page'
import { AdminDashboardPage } from '../features/admin/admin-dashboard-page'
import { AdminUserPage } from '../features/admin/admin-user-page'
import { AdminUsersPage } from '../features/admin/admin-users-page'
import { ApiKeysPage } from '../features/api-keys/api-keys-page'
import { BillingPage } from '../features/billing/billing-page'
import { DashboardPage } from '../features/dashboard/dashboard-page'
import { DocsPage } from '../features/docs/docs-page'
import { ModelsPage } from '../features/models/models-page'
import { PlaygroundPage } from '../features/playground/playground-page'
import { UsagePage } from '../features/usage/usage-page'
import { RequireAdmin } from './guards'
import { AppLayout } from './layouts/app-layout'

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
      <Route path="/app/account" component={AccountPage} />
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
      <Route path="/app/admin/users/:id">
        {(params) => (
          <RequireAdmin>
            <AdminUserPage key={params.id} id={params.id} />
          </RequireAdmin>
        )}
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

/** Rendered behind RequireAuth (router.tsx), so visitors are sent to /login without loading it. */
export default function AppArea() {
  return (
    <AppLayout>
      <AppRoutes />
    </AppLayout>
  )
}
