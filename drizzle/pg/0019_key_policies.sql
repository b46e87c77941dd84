CREATE TABLE "auth_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"callback_url" text NOT NULL,
	"code_challenge" text NOT NULL,
	"budget_micros" bigint,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "key_rates" (
	"key_id" text PRIMARY KEY NOT NULL,
	"requests_tat" bigint DEFAULT 0 NOT NULL,
	"tokens_tat" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "kind" text DEFAULT 'inference' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "rpm_limit" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "tpm_limit" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_models" json;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_ips" json;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "policy_set_by" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "policy_set_by_role" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "app_origin" text;--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "allowed_models" json;--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "key_defaults" json;--> statement-breakpoint
ALTER TABLE "auth_codes" ADD CONSTRAINT "auth_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key_rates" ADD CONSTRAINT "key_rates_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "auth_codes_expires_idx" ON "auth_codes" USING btree ("expires_at");