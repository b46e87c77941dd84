CREATE TABLE `usage_daily` (
	`user_id` text NOT NULL,
	`day` text NOT NULL,
	`api_key_id` text NOT NULL,
	`model` text NOT NULL,
	`requests` integer NOT NULL,
	`tokens` integer NOT NULL,
	`cost_micros` integer NOT NULL,
	PRIMARY KEY(`user_id`, `day`, `api_key_id`, `model`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`amount_micros` integer NOT NULL,
	`status` text NOT NULL,
	`provider` text NOT NULL,
	`provider_payment_id` text,
	`description` text NOT NULL,
	`confirmation_url` text,
	`return_url` text NOT NULL,
	`cancel_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`paid_at` integer,
	`checked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_provider_payment_id_unique` ON `payments` (`provider_payment_id`);--> statement-breakpoint
CREATE INDEX `payments_user_created_idx` ON `payments` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `payments_status_created_idx` ON `payments` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `refund_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`amount_micros` integer NOT NULL,
	`reason` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`created_at` integer NOT NULL,
	`resolved_at` integer,
	`resolved_by` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `refund_requests_user_idx` ON `refund_requests` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `refund_requests_status_idx` ON `refund_requests` (`status`);--> statement-breakpoint
ALTER TABLE `users` ADD `low_balance_alert_micros` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `low_balance_alerted` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `usage_user_model_created_idx` ON `usage_logs` (`user_id`,`model`,`created_at`);--> statement-breakpoint
-- Backfill the daily rollup from the requests logged before it existed (Moscow days, UTC+3).
INSERT INTO `usage_daily` (`user_id`, `day`, `api_key_id`, `model`, `requests`, `tokens`, `cost_micros`)
SELECT `user_id`, date(`created_at` / 1000 + 10800, 'unixepoch'), coalesce(`api_key_id`, ''), `model`, count(*), sum(`total_tokens`), sum(`cost_micros`)
FROM `usage_logs` GROUP BY 1, 2, 3, 4;
