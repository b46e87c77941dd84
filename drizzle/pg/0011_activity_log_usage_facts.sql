DROP INDEX "usage_user_created_idx";--> statement-breakpoint
DROP INDEX "usage_team_created_idx";--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "key_name" text;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "requested_model" text;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "images" bigint;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "usd_rub_rate" text;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "markup" text;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "hold_id" text;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "hold_micros" bigint;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "request_id" text;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "ttft_ms" bigint;--> statement-breakpoint
CREATE INDEX "usage_user_created_id_idx" ON "usage_logs" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "usage_team_created_id_idx" ON "usage_logs" USING btree ("team_id","created_at","id");