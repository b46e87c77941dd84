CREATE TABLE `budget_alerts` (
	`target` text NOT NULL,
	`threshold` integer NOT NULL,
	`period_start` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`target`, `threshold`, `period_start`)
);
--> statement-breakpoint
CREATE INDEX `budget_alerts_created_idx` ON `budget_alerts` (`created_at`);--> statement-breakpoint
CREATE TABLE `team_audit` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`at` integer NOT NULL,
	`actor_id` text,
	`action` text NOT NULL,
	`target` text,
	`ip` text,
	`details` text,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `team_audit_team_at_idx` ON `team_audit` (`team_id`,`at`);--> statement-breakpoint
CREATE INDEX `team_audit_at_idx` ON `team_audit` (`at`);--> statement-breakpoint
CREATE TABLE `team_invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`email` text NOT NULL,
	`email_normalized` text NOT NULL,
	`role` text NOT NULL,
	`invited_by` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`invited_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_invitations_token_hash_unique` ON `team_invitations` (`token_hash`);--> statement-breakpoint
CREATE INDEX `team_invitations_team_idx` ON `team_invitations` (`team_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `team_members` (
	`team_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`budget_limit_micros` integer,
	`budget_period` text DEFAULT 'month' NOT NULL,
	`budget_period_start` integer DEFAULT 0 NOT NULL,
	`budget_spent_micros` integer DEFAULT 0 NOT NULL,
	`budget_held_micros` integer DEFAULT 0 NOT NULL,
	`joined_at` integer NOT NULL,
	PRIMARY KEY(`team_id`, `user_id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `team_members_user_idx` ON `team_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `teams` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`balance_micros` integer DEFAULT 0 NOT NULL,
	`held_micros` integer DEFAULT 0 NOT NULL,
	`low_balance_alert_micros` integer,
	`low_balance_alerted` integer DEFAULT false NOT NULL,
	`webhook_url` text,
	`webhook_secret` text,
	`created_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`event` text NOT NULL,
	`body` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`claimed_until` integer,
	`last_status` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`delivered_at` integer,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_team_idx` ON `webhook_deliveries` (`team_id`,`created_at`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_usage_daily` (
	`user_id` text NOT NULL,
	`team_id` text DEFAULT '' NOT NULL,
	`day` text NOT NULL,
	`api_key_id` text NOT NULL,
	`model` text NOT NULL,
	`requests` integer NOT NULL,
	`tokens` integer NOT NULL,
	`audio_seconds` integer DEFAULT 0 NOT NULL,
	`characters` integer DEFAULT 0 NOT NULL,
	`cost_micros` integer NOT NULL,
	`upstream_cost_nano_usd` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`user_id`, `team_id`, `day`, `api_key_id`, `model`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_usage_daily`("user_id", "team_id", "day", "api_key_id", "model", "requests", "tokens", "audio_seconds", "characters", "cost_micros", "upstream_cost_nano_usd") SELECT "user_id", '', "day", "api_key_id", "model", "requests", "tokens", "audio_seconds", "characters", "cost_micros", "upstream_cost_nano_usd" FROM `usage_daily`;--> statement-breakpoint
DROP TABLE `usage_daily`;--> statement-breakpoint
ALTER TABLE `__new_usage_daily` RENAME TO `usage_daily`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `usage_daily_team_day_idx` ON `usage_daily` (`team_id`,`day`);--> statement-breakpoint
ALTER TABLE `holds` ADD `team_id` text;--> statement-breakpoint
ALTER TABLE `holds` ADD `key_held_micros` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `holds` ADD `member_held_micros` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `team_id` text REFERENCES teams(id);--> statement-breakpoint
CREATE INDEX `ledger_team_created_idx` ON `ledger_entries` (`team_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `uncovered_costs` ADD `team_id` text;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `team_id` text;--> statement-breakpoint
CREATE INDEX `usage_team_created_idx` ON `usage_logs` (`team_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `chats` ADD `team_id` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `team_id` text REFERENCES teams(id);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `budget_limit_micros` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `budget_period` text DEFAULT 'month' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `budget_period_start` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `budget_spent_micros` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `budget_held_micros` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `api_keys_team_idx` ON `api_keys` (`team_id`);--> statement-breakpoint
ALTER TABLE `payments` ADD `team_id` text;--> statement-breakpoint
CREATE INDEX `payments_team_created_idx` ON `payments` (`team_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `refund_requests` ADD `team_id` text;