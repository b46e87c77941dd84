CREATE TABLE `auth_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`callback_url` text NOT NULL,
	`code_challenge` text NOT NULL,
	`budget_micros` integer,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `auth_codes_expires_idx` ON `auth_codes` (`expires_at`);--> statement-breakpoint
CREATE TABLE `key_rates` (
	`key_id` text PRIMARY KEY NOT NULL,
	`requests_tat` integer DEFAULT 0 NOT NULL,
	`tokens_tat` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `api_keys` ADD `kind` text DEFAULT 'inference' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `rpm_limit` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `tpm_limit` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `allowed_models` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `allowed_ips` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `expires_at` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `policy_set_by` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `policy_set_by_role` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `app_origin` text;--> statement-breakpoint
ALTER TABLE `teams` ADD `allowed_models` text;--> statement-breakpoint
ALTER TABLE `teams` ADD `key_defaults` text;