// The signed-in area (/app/*), loaded on demand: the landing and the other public pages never
// download this code. Add new /app screens here.
import { Redirect, Route, Switch } from 'wouter'
import { AccountPage } from '../features/account/account-page'
import { ActivityPage } from '../features/activity/activity-page'
import { AdminBlogPage } from '../features/admin/admin-blog-page'
import { AdminDashboardPage } from '../features/admin/admin-dashboard-page'
import { AdminPromoPage } from '../features/admin/admin-promo-page'
import { AdminTeamsPage } from '../features/admin/admin-teams-page'
import { AdminUserPage } from '../features/admin/admin-user-page'
import { AdminUsersPage } from '../features/admin/admin-users-page'
import { ApiKeysPage } from '../features/api-keys/api-keys-page'
import { DashboardPage } from '../features/dashboard/dashboard-page'
import { DocsPage } from '../features/docs/docs-page'
import { AdminInvoicesPage } from '../features/invoices/admin-invoices-page'
import { DocumentsPage } from '../features/invoices/documents-page'
import { ModelsPage } from '../features/models/models-page'
import { PlaygroundPage } from '../features/playground/playground-page'
import { TeamAuditPage } from '../features/teams/team-audit-page'
import { TeamPage } from '../features/teams/team-page'
import { TeamWebhookPage } from '../features/teams/team-webhook-page'
import { TeamAnalyticsPage } from '../features/usage/team-analytics-page'
import { UsagePage } from '../features/usage/usage-page'
import { useAccountContext } from '../stores/account'
import { RequireAdmin, RequirePermission } from './guards'
import { AppLayout } from './layouts/app-layout'
import { BillingPage } from './pages/billing-page'

/** Routes inside the signed-in layout; the layout stays mounted while these change. */
function AppRoutes() {
  return (
    <Switch>
      <Route path="/app/dashboard" component={DashboardPage} />
      <Route path="/app/playground">
        <RequirePermission permission="playground">
          <PlaygroundPage />
        </RequirePermission>
      </Route>
      <Route path="/app/models" component={ModelsPage} />
      <Route path="/app/api-keys">
        <RequirePermission permission="keys.own">
          <ApiKeysPage />
        </RequirePermission>
      </Route>
      <Route path="/app/billing">
        <RequirePermission permission="history">
          <BillingPage />
        </RequirePermission>
      </Route>
      <Route path="/app/usage">
        <RequirePermission permission="usage.own">
          <UsagePage />
        </RequirePermission>
      </Route>
      <Route path="/app/activity">
        <RequirePermission permission="usage.own">
          <ActivityPage />
        </RequirePermission>
      </Route>
      <Route path="/app/docs" component={DocsPage} />
      <Route path="/app/account" component={AccountPage} />
      <Route path="/app/team" component={TeamPage} />
      <Route path="/app/team/analytics">
        <RequirePermission team permission="usage.all">
          <TeamAnalyticsPage />
        </RequirePermission>
      </Route>
      <Route path="/app/team/audit">
        <RequirePermission team permission="audit.view">
          <TeamAuditPage />
        </RequirePermission>
      </Route>
      <Route path="/app/team/documents">
        <RequirePermission team permission="topup">
          <DocumentsPage />
        </RequirePermission>
      </Route>
      <Route path="/app/team/webhook">
        <RequirePermission team permission="webhook.manage">
          <TeamWebhookPage />
        </RequirePermission>
      </Route>
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
      <Route path="/app/admin/teams">
        <RequireAdmin>
          <AdminTeamsPage />
        </RequireAdmin>
      </Route>
      <Route path="/app/admin/invoices">
        <RequireAdmin>
          <AdminInvoicesPage />
        </RequireAdmin>
      </Route>
      <Route path="/app/admin/promo-codes">
        <RequireAdmin>
          <AdminPromoPage />
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

/** Rendered behind RequireAuth (router.tsx), so visitors are sent to /login without loading it. */
export default function AppArea() {
  // A switch of account starts every screen afresh (its own state belonged to the other account).
  const teamId = useAccountContext((s) => s.teamId)
  return (
    <AppLayout>
      <AppRoutes key={teamId ?? 'personal'} />
    </AppLayout>
  )
}
