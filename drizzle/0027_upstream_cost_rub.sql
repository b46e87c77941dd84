ALTER TABLE `usage_daily` ADD `upstream_cost_nano_rub` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `upstream_cost_rub` text;