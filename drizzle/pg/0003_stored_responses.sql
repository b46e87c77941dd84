CREATE TABLE "stored_responses" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"team_id" text,
	"parent_id" text,
	"model" text NOT NULL,
	"status" text NOT NULL,
	"input" json NOT NULL,
	"output" json NOT NULL,
	"usage" json,
	"response" json NOT NULL,
	"bytes" bigint NOT NULL,
	"chain_bytes" bigint NOT NULL,
	"depth" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "stored_responses" ADD CONSTRAINT "stored_responses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "stored_responses_expires_idx" ON "stored_responses" USING btree ("expires_at");