CREATE TABLE "upstream_incidents" (
	"id" text PRIMARY KEY NOT NULL,
	"upstream" text NOT NULL,
	"instance_id" text NOT NULL,
	"started_at" bigint NOT NULL,
	"ended_at" bigint,
	"checked_at" bigint NOT NULL,
	"reason" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "upstream" text DEFAULT 'primary' NOT NULL;--> statement-breakpoint
CREATE INDEX "upstream_incidents_started_idx" ON "upstream_incidents" USING btree ("started_at");