CREATE TABLE `auto_topups` (
	`account_key` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`team_id` text,
	`enabled` integer DEFAULT false NOT NULL,
	`threshold_micros` integer NOT NULL,
	`amount_micros` integer NOT NULL,
	`daily_limit_micros` integer NOT NULL,
	`payment_method_id` text,
	`pending_payment_id` text,
	`day` text,
	`charged_today_micros` integer DEFAULT 0 NOT NULL,
	`failures_today` integer DEFAULT 0 NOT NULL,
	`disabled_reason` text,
	`retry_after` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `payment_methods` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`team_id` text,
	`provider_method_id` text NOT NULL,
	`type` text NOT NULL,
	`title` text NOT NULL,
	`last4` text,
	`expiry_month` text,
	`expiry_year` text,
	`card_type` text,
	`created_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payment_methods_user_idx` ON `payment_methods` (`user_id`,`team_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `payment_methods_provider_idx` ON `payment_methods` (`provider_method_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `promo_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`amount_micros` integer NOT NULL,
	`max_uses` integer NOT NULL,
	`uses` integer DEFAULT 0 NOT NULL,
	`expires_at` integer,
	`disabled_at` integer,
	`created_by` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `promo_codes_code_unique` ON `promo_codes` (`code`);--> statement-breakpoint
CREATE TABLE `promo_redemptions` (
	`id` text PRIMARY KEY NOT NULL,
	`promo_id` text NOT NULL,
	`account_key` text NOT NULL,
	`user_id` text NOT NULL,
	`team_id` text,
	`amount_micros` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`promo_id`) REFERENCES `promo_codes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `promo_redemptions_once_idx` ON `promo_redemptions` (`promo_id`,`account_key`);--> statement-breakpoint
CREATE INDEX `promo_redemptions_user_idx` ON `promo_redemptions` (`user_id`);--> statement-breakpoint
ALTER TABLE `users` ADD `referral_code` text;--> statement-breakpoint
ALTER TABLE `users` ADD `referred_by` text;--> statement-breakpoint
ALTER TABLE `users` ADD `referral_rewarded_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `users_referral_code_unique` ON `users` (`referral_code`);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `fit_to_balance` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `method` text DEFAULT 'card' NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `save_payment_method` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `payment_method_id` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `auto` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `cancellation_reason` text;--> statement-breakpoint
ALTER TABLE `teams` ADD `fit_to_balance` integer DEFAULT false NOT NULL;