CREATE TABLE "act_counters" (
	"period" text PRIMARY KEY NOT NULL,
	"last" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bank_payments" (
	"id" text PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"order_number" text NOT NULL,
	"order_date" text NOT NULL,
	"received_date" text,
	"amount_micros" bigint NOT NULL,
	"payer_inn" text NOT NULL,
	"payer_kpp" text,
	"payer_name" text NOT NULL,
	"payer_account" text NOT NULL,
	"payer_bik" text NOT NULL,
	"purpose" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"invoice_number" text,
	"invoice_id" text,
	"imported_at" bigint NOT NULL,
	"imported_by" text,
	"resolved_at" bigint,
	"resolved_by" text,
	CONSTRAINT "bank_payments_key_unique" UNIQUE("key")
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" text PRIMARY KEY NOT NULL,
	"number" text NOT NULL,
	"team_id" text NOT NULL,
	"issued_by" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"status" text NOT NULL,
	"issued_at" bigint NOT NULL,
	"document" json NOT NULL,
	"buyer_inn" text NOT NULL,
	"sent_to" text,
	"paid_at" bigint,
	"received_at" bigint,
	"paid_micros" bigint,
	"bank_payment_id" text,
	"paid_by" text,
	"cancelled_at" bigint,
	"cancelled_by" text,
	CONSTRAINT "invoices_number_unique" UNIQUE("number")
);
--> statement-breakpoint
CREATE TABLE "team_acts" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"year" bigint NOT NULL,
	"month" bigint NOT NULL,
	"number" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "team_acts_number_unique" UNIQUE("number")
);
--> statement-breakpoint
CREATE TABLE "team_companies" (
	"team_id" text PRIMARY KEY NOT NULL,
	"inn" text NOT NULL,
	"kpp" text,
	"name" text NOT NULL,
	"address" text NOT NULL,
	"email" text NOT NULL,
	"updated_at" bigint NOT NULL,
	"updated_by" text
);
--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_issued_by_users_id_fk" FOREIGN KEY ("issued_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_acts" ADD CONSTRAINT "team_acts_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_companies" ADD CONSTRAINT "team_companies_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_companies" ADD CONSTRAINT "team_companies_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bank_payments_status_idx" ON "bank_payments" USING btree ("status","imported_at");--> statement-breakpoint
CREATE INDEX "invoices_team_issued_idx" ON "invoices" USING btree ("team_id","issued_at");--> statement-breakpoint
CREATE INDEX "invoices_status_issued_idx" ON "invoices" USING btree ("status","issued_at");--> statement-breakpoint
CREATE UNIQUE INDEX "team_acts_team_month_idx" ON "team_acts" USING btree ("team_id","year","month");