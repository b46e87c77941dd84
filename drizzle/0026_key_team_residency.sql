ALTER TABLE `api_keys` ADD `residency` text DEFAULT 'any' NOT NULL;--> statement-breakpoint
ALTER TABLE `teams` ADD `residency` text DEFAULT 'any' NOT NULL;