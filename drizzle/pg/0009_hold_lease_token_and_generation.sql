ALTER TABLE "holds" ADD COLUMN "lease_token" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "holds" ADD COLUMN "generation_id" text;--> statement-breakpoint
ALTER TABLE "holds" ADD COLUMN "generation" json;