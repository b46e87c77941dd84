// The wire types of /api and /v1: what the routes answer (and the few bodies clients send), as
// TypeScript types derived from the route schemas in src/*/model.ts. The schema is the one
// declaration: the server validates against it, /api/openapi.json is generated from it, and the
// SPA (web/) and the terminal client (cli/) import these types with `import type`, so nothing of
// the server reaches their bundles (src/system/boundaries.test.ts keeps it that way).
// Names follow what the clients call them; the schema each comes from is named beside it.
import type { ActivityDetail as ActivityDetailSchema, ActivityFilters as ActivityFiltersSchema, ActivityPage as ActivityPageSchema } from './activity/model'
import type {
  AdminStats as AdminStatsSchema,
  AdminTeam as AdminTeamSchema,
  TeamsPage as AdminTeamsPageSchema,
  AdminUserDetail as AdminUserDetailSchema,
  AdminUser as AdminUserSchema,
  BalanceResult as BalanceResultSchema,
  Deleted as DeletedSchema,
  TeamBalanceResult as TeamBalanceResultSchema,
  UncoveredPage as UncoveredPageSchema,
  UsersPage as UsersPageSchema,
} from './admin/model'
import type { AuthResult as AuthResultSchema, PublicUser, Session as SessionSchema, TokenPair as TokenPairSchema, Verified as VerifiedSchema } from './auth/model'
import type {
  Alerts as AlertsSchema,
  Balance as BalanceSchema,
  Budget as BudgetSchema,
  GroupedTransactions,
  Transaction as TransactionSchema,
  UsageStats as UsageStatsSchema,
} from './billing/model'
import type {
  AdminBlogPost as AdminBlogPostSchema,
  AutopostSettings as AutopostSettingsSchema,
  AutopostStats as AutopostStatsSchema,
  BlogPost as BlogPostSchema,
  Views as ViewsSchema,
} from './blog/model'
import type { ChatMessage as ChatMessageSchema, Chat as ChatSchema, ChatSummary as ChatSummarySchema } from './chats/model'
import type { EstimateResult, ModelObject } from './gateway/model'
import type {
  AdminInvoice as AdminInvoiceSchema,
  BankPayment as BankPaymentSchema,
  Company as CompanySchema,
  CompanyState as CompanyStateSchema,
  CreditedPayment as CreditedPaymentSchema,
  InnConflict as InnConflictSchema,
  InvoiceAvailability as InvoiceAvailabilitySchema,
  Invoice as InvoiceSchema,
  StatementResult as StatementResultSchema,
  TeamDocument as TeamDocumentSchema,
} from './invoices/model'
import type { ApiKey as ApiKeySchema, CreatedApiKey as CreatedApiKeySchema, PatchKeyBody } from './keys/model'
import type {
  AdminRefundRequest as AdminRefundRequestSchema,
  AutoTopup as AutoTopupSchema,
  CreatedPayment as CreatedPaymentSchema,
  CreatedRefundRequest,
  PaymentMethod as PaymentMethodSchema,
  Payment as PaymentSchema,
  RefundStatus,
  TestPaymentResult as TestPaymentResultSchema,
  TestPayment as TestPaymentSchema,
} from './payments/model'
import type { PromoCode as PromoCodeSchema, Redeemed as RedeemedSchema, Referral as ReferralSchema } from './promo/model'
import type { StatusBody, UpstreamsBody } from './status/model'
import type { Health as HealthSchema } from './system/model'
import type {
  AuditEntry as AuditEntrySchema,
  InvitationPreview as InvitationPreviewSchema,
  Invitation as InvitationSchema,
  TeamDetails as TeamDetailsSchema,
  TeamMember as TeamMemberSchema,
  TeamSummary as TeamSummarySchema,
  WebhookSecret as WebhookSecretSchema,
  WebhookState as WebhookStateSchema,
} from './teams/model'
import type { Upload as UploadSchema } from './uploads/model'

// ─── account (/api/auth) ─────────────────────────────────────────────────────

/** PublicUser: GET /api/auth/profile, login, register. */
export type User = typeof PublicUser.static
export type AuthResult = typeof AuthResultSchema.static
export type TokenPair = typeof TokenPairSchema.static
/** GET /api/auth/sessions item. */
export type Session = typeof SessionSchema.static
/** POST /api/auth/verify-email. */
export type Verified = typeof VerifiedSchema.static

// ─── API keys (/api/auth/api-keys) ───────────────────────────────────────────

export type ApiKey = typeof ApiKeySchema.static
/** The creation answer: the only time the full key crosses the wire. */
export type CreatedApiKey = typeof CreatedApiKeySchema.static
/** PATCH /api/auth/api-keys/{id} body. */
export type ApiKeyPatch = typeof PatchKeyBody.static

// ─── balance, history, usage (/api/billing) ──────────────────────────────────

export type Balance = typeof BalanceSchema.static
/** PATCH /api/billing/alerts. */
export type Alerts = typeof AlertsSchema.static
export type Transaction = typeof TransactionSchema.static
export type TransactionType = Transaction['type']
/** GET /api/billing/transactions/grouped: movements, and one Moscow day's usage charges per line. */
export type GroupedHistoryPage = typeof GroupedTransactions.static
export type GroupedHistoryItem = GroupedHistoryPage['items'][number]
/** GET /api/billing/usage: totals, per-day series and the latest requests of a period. */
export type UsageStats = typeof UsageStatsSchema.static
/** One request to /v1 in UsageStats.logs. */
export type UsageLog = UsageStats['logs'][number]
export type UsageStatus = UsageLog['status']
/** One Moscow calendar day of the usage chart. */
export type UsageDay = UsageStats['daily'][number]
export type UsageModel = UsageStats['topModels'][number]

// ─── the activity log (/api/activity) ────────────────────────────────────────

/** GET /api/activity: one page of requests, newest first, and the cursor of the next. */
export type ActivityPage = typeof ActivityPageSchema.static
export type ActivityItem = ActivityPage['items'][number]
/** GET /api/activity/{id}: how one request was answered and charged. */
export type ActivityDetail = typeof ActivityDetailSchema.static
/** GET /api/activity/filters: the keys, models and (a whole team) members to filter by. */
export type ActivityFilters = typeof ActivityFiltersSchema.static

/** A budget: a limit in rubles with a Moscow calendar period, this period's spend, what is left, the next reset. */
export type Budget = typeof BudgetSchema.static
export type BudgetPeriod = Budget['period']
/** What PATCH /api/teams/{id}/members/{userId} and PATCH /api/auth/api-keys/{id} take as `budget`. */
export type BudgetInput = { limitRub: number | null; period: BudgetPeriod }

// ─── teams (/api/teams; X-Team-Id on the account routes) ─────────────────────

/** POST /api/teams, GET /api/teams item: the caller's role in it. */
export type TeamSummary = typeof TeamSummarySchema.static
export type TeamRole = TeamSummary['role']
/** GET /api/teams/{id}: with members, budgets and what the caller's role may do. */
export type TeamDetails = typeof TeamDetailsSchema.static
export type TeamPermission = TeamDetails['permissions'][number]
export type TeamMember = typeof TeamMemberSchema.static
export type TeamInvitation = typeof InvitationSchema.static
/** POST /api/teams/invitations/lookup. */
export type InvitationPreview = typeof InvitationPreviewSchema.static
export type TeamAuditEntry = typeof AuditEntrySchema.static
export type TeamWebhook = typeof WebhookStateSchema.static
/** PUT /api/teams/{id}/webhook: the signing secret, shown once. */
export type TeamWebhookSecret = typeof WebhookSecretSchema.static

// ─── payments and refunds (/api/payments) ────────────────────────────────────

export type Payment = typeof PaymentSchema.static
export type PaymentStatus = Payment['status']
export type CreatedPayment = typeof CreatedPaymentSchema.static
/** GET /api/payments/refund-request (schema RefundStatus): can the remainder be returned now. */
export type RefundEligibility = typeof RefundStatus.static
/** The customer's refund request (POST /api/payments/refund-request). */
export type RefundRequest = typeof CreatedRefundRequest.static
export type RefundRequestStatus = RefundRequest['status']
/** GET /api/admin/refund-requests item. */
export type AdminRefundRequest = typeof AdminRefundRequestSchema.static
/** The built-in test payment page. */
export type TestPayment = typeof TestPaymentSchema.static
export type TestPaymentResult = typeof TestPaymentResultSchema.static
/** GET /api/payments/methods item: a saved card (issue 37). */
export type PaymentMethod = typeof PaymentMethodSchema.static
/** GET/PUT /api/billing/auto-topup. */
export type AutoTopup = typeof AutoTopupSchema.static

// ─── promo codes and referrals (/api/billing/promo, /api/billing/referral, /api/admin/promo-codes) ───

/** An admin's promo code with its uses and state. */
export type PromoCode = typeof PromoCodeSchema.static
export type PromoCodeState = PromoCode['state']
/** POST /api/billing/promo. */
export type PromoRedeemed = typeof RedeemedSchema.static
/** GET /api/billing/referral: the account's invitation link and what it brought. */
export type Referral = typeof ReferralSchema.static

// ─── invoices and documents of teams (/api/teams/{id}/company, …/invoices, …/documents) ───

export type Company = typeof CompanySchema.static
export type CompanyState = typeof CompanyStateSchema.static
export type InvoiceAvailability = typeof InvoiceAvailabilitySchema.static
export type Invoice = typeof InvoiceSchema.static
export type InvoiceStatus = Invoice['status']
export type TeamDocument = typeof TeamDocumentSchema.static
/** POST /api/admin/bank-statements. */
export type StatementResult = typeof StatementResultSchema.static
export type BankPayment = typeof BankPaymentSchema.static
export type CreditedPayment = typeof CreditedPaymentSchema.static
export type AdminInvoice = typeof AdminInvoiceSchema.static
/** GET /api/admin/inn-conflicts item: one INN and the teams that registered it. */
export type InnConflict = typeof InnConflictSchema.static
export type InnRegistration = InnConflict['registrations'][number]
export type InnConfirmation = Company['innConfirmation']

// ─── blog (/api/blog) ────────────────────────────────────────────────────────

export type BlogPost = typeof BlogPostSchema.static
/** GET /api/blog/admin/posts item: drafts included, with timestamps. */
export type AdminBlogPost = typeof AdminBlogPostSchema.static
export type PostViews = typeof ViewsSchema.static
export type AutopostSettings = typeof AutopostSettingsSchema.static
export type AutopostStats = typeof AutopostStatsSchema.static

// ─── admin (/api/admin) ──────────────────────────────────────────────────────

export type AdminStats = typeof AdminStatsSchema.static
export type AdminUser = typeof AdminUserSchema.static
/** GET /api/admin/users: `{success, data, pagination}` (not the plain envelope). */
export type AdminUsersPage = typeof UsersPageSchema.static
/** GET /api/admin/uncovered: `{success, total, requests, data}` (not the plain envelope). */
export type UncoveredResponse = typeof UncoveredPageSchema.static
/** One request whose cost exceeded what its customer was charged; rubles. */
export type UncoveredCost = UncoveredResponse['data'][number]
/** GET /api/admin/users/:id. */
export type AdminUserDetail = typeof AdminUserDetailSchema.static
export type BalanceAdjustment = typeof BalanceResultSchema.static
export type AdminTeam = typeof AdminTeamSchema.static
/** GET /api/admin/teams: `{success, data, pagination}`. */
export type AdminTeamsPage = typeof AdminTeamsPageSchema.static
/** POST /api/admin/teams/{id}/balance. */
export type TeamBalanceAdjustment = typeof TeamBalanceResultSchema.static
export type Deleted = typeof DeletedSchema.static
/** GET /api/admin/upstreams: this instance's circuit breakers and recent upstream errors. */
export type AdminUpstreams = typeof UpstreamsBody.static

// ─── Playground history (/api/chats, /api/upload) ────────────────────────────

export type Upload = typeof UploadSchema.static
export type ChatSummary = typeof ChatSummarySchema.static
export type ChatMessage = typeof ChatMessageSchema.static
export type Chat = typeof ChatSchema.static
/** POST /api/playground/estimate. */
export type Estimate = typeof EstimateResult.static

// ─── catalogue (/v1/models) and the system ───────────────────────────────────

/** A catalogue entry of GET /v1/models (OpenAI list shape, prices in rubles). */
export type Model = typeof ModelObject.static
export type ModelList = { object: 'list'; data: Model[] }
/** GET /api/health. */
export type Health = typeof HealthSchema.static
/** GET /api/status: what /status shows. */
export type ServiceStatus = typeof StatusBody.static
