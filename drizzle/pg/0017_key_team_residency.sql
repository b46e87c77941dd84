ALTER TABLE "api_keys" ADD COLUMN "residency" text DEFAULT 'any' NOT NULL;--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "residency" text DEFAULT 'any' NOT NULL;