ALTER TABLE "usage_daily" ADD COLUMN "upstream_cost_nano_rub" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "upstream_cost_rub" text;