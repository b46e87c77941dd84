DROP INDEX `usage_user_created_idx`;--> statement-breakpoint
DROP INDEX `usage_team_created_idx`;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `key_name` text;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `requested_model` text;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `images` integer;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `usd_rub_rate` text;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `markup` text;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `hold_id` text;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `hold_micros` integer;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `request_id` text;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `ttft_ms` integer;--> statement-breakpoint
CREATE INDEX `usage_user_created_id_idx` ON `usage_logs` (`user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `usage_team_created_id_idx` ON `usage_logs` (`team_id`,`created_at`,`id`);