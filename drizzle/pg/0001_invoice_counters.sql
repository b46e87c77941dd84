CREATE TABLE "invoice_counters" (
	"year" bigint PRIMARY KEY NOT NULL,
	"last" bigint NOT NULL
);
