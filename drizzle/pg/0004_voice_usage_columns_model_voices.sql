ALTER TABLE "usage_daily" ADD COLUMN "audio_seconds" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "characters" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "audio_seconds" bigint;--> statement-breakpoint
ALTER TABLE "usage_logs" ADD COLUMN "characters" bigint;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "supported_voices" json;