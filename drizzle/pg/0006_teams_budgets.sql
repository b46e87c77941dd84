CREATE TABLE "budget_alerts" (
	"target" text NOT NULL,
	"threshold" bigint NOT NULL,
	"period_start" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "budget_alerts_target_threshold_period_start_pk" PRIMARY KEY("target","threshold","period_start")
);
--> statement-breakpoint
CREATE TABLE "team_audit" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"at" bigint NOT NULL,
	"actor_id" text,
	"action" text NOT NULL,
	"target" text,
	"ip" text,
	"details" json
);
--> statement-breakpoint
CREATE TABLE "team_invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"email" text NOT NULL,
	"email_normalized" text NOT NULL,
	"role" text NOT NULL,
	"invited_by" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"revoked_at" bigint,
	CONSTRAINT "team_invitations_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "team_members" (
	"team_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"budget_limit_micros" bigint,
	"budget_period" text DEFAULT 'month' NOT NULL,
	"budget_period_start" bigint DEFAULT 0 NOT NULL,
	"budget_spent_micros" bigint DEFAULT 0 NOT NULL,
	"budget_held_micros" bigint DEFAULT 0 NOT NULL,
	"joined_at" bigint NOT NULL,
	CONSTRAINT "team_members_team_id_user_id_pk" PRIMARY KEY("team_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "teams" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"balance_micros" bigint DEFAULT 0 NOT NULL,
	"held_micros" bigint DEFAULT 0 NOT NULL,
	"low_balance_alert_micros" bigint,
	"low_balance_alerted" boolean DEFAULT false NOT NULL,
	"webhook_url" text,
	"webhook_secret" text,
	"created_at" bigint NOT NULL,
	"deleted_at" bigint
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"event" text NOT NULL,
	"body" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint NOT NULL,
	"claimed_until" bigint,
	"last_status" bigint,
	"last_error" text,
	"created_at" bigint NOT NULL,
	"delivered_at" bigint
);
--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "team_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" DROP CONSTRAINT "usage_daily_user_id_day_api_key_id_model_pk";--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_user_id_team_id_day_api_key_id_model_pk" PRIMARY KEY("user_id","team_id","day","api_key_id","model");--> statement-breakpoint
ALTER TABLE "holds" ADD COLUMN "team_id" text;--> statement-breakpoint
ALTER TABLE "holds" ADD COLUMN "key_held_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "holds" ADD COLUMN "member_held_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD COLUMN "team_id" text;--> statement-breakpoint
ALTER TABLE "uncovered_costs" ADD COLUMN "team_id" text;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "team_id" text;--> statement-breakpoint
ALTER TABLE "chats" ADD COLUMN "team_id" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "team_id" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_limit_micros" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_period" text DEFAULT 'month' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_period_start" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_spent_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_held_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "team_id" text;--> statement-breakpoint
ALTER TABLE "refund_requests" ADD COLUMN "team_id" text;--> statement-breakpoint
ALTER TABLE "team_audit" ADD CONSTRAINT "team_audit_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_invitations" ADD CONSTRAINT "team_invitations_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_invitations" ADD CONSTRAINT "team_invitations_invited_by_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "budget_alerts_created_idx" ON "budget_alerts" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "team_audit_team_at_idx" ON "team_audit" USING btree ("team_id","at");--> statement-breakpoint
CREATE INDEX "team_audit_at_idx" ON "team_audit" USING btree ("at");--> statement-breakpoint
CREATE INDEX "team_invitations_team_idx" ON "team_invitations" USING btree ("team_id","created_at");--> statement-breakpoint
CREATE INDEX "team_members_user_idx" ON "team_members" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_team_idx" ON "webhook_deliveries" USING btree ("team_id","created_at");--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_team_created_idx" ON "ledger_entries" USING btree ("team_id","created_at");--> statement-breakpoint
CREATE INDEX "usage_daily_team_day_idx" ON "usage_daily" USING btree ("team_id","day");--> statement-breakpoint
CREATE INDEX "usage_team_created_idx" ON "usage_logs" USING btree ("team_id","created_at");--> statement-breakpoint
CREATE INDEX "api_keys_team_idx" ON "api_keys" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "payments_team_created_idx" ON "payments" USING btree ("team_id","created_at");