CREATE TABLE "pending_charges" (
	"id" text PRIMARY KEY NOT NULL,
	"reserve_id" text NOT NULL,
	"entry" json NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "holds" ADD COLUMN "reserve" boolean DEFAULT false NOT NULL;