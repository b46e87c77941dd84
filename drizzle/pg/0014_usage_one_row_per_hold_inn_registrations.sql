CREATE TABLE "inn_first_registrations" (
	"inn" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"registered_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "team_companies" ADD COLUMN "inn_confirmation" text DEFAULT 'not_needed' NOT NULL;--> statement-breakpoint
ALTER TABLE "team_companies" ADD COLUMN "inn_reviewed_at" bigint;--> statement-breakpoint
ALTER TABLE "team_companies" ADD COLUMN "inn_reviewed_by" text;--> statement-breakpoint
ALTER TABLE "inn_first_registrations" ADD CONSTRAINT "inn_first_registrations_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "usage_hold_idx" ON "usage_logs" USING btree ("hold_id");--> statement-breakpoint
CREATE INDEX "team_companies_inn_idx" ON "team_companies" USING btree ("inn");