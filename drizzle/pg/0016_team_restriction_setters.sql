ALTER TABLE "api_keys" ADD COLUMN "disabled_by" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "disabled_by_role" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_set_by" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_set_by_role" text;--> statement-breakpoint
ALTER TABLE "team_members" ADD COLUMN "budget_set_by" text;--> statement-breakpoint
ALTER TABLE "team_members" ADD COLUMN "budget_set_by_role" text;