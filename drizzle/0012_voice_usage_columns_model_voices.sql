ALTER TABLE `usage_daily` ADD `audio_seconds` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_daily` ADD `characters` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `audio_seconds` integer;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `characters` integer;--> statement-breakpoint
ALTER TABLE `models` ADD `supported_voices` text;