CREATE TABLE `uncovered_costs` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`usage_id` text NOT NULL,
	`model` text NOT NULL,
	`upstream_id` text,
	`held_micros` integer NOT NULL,
	`cost_micros` integer NOT NULL,
	`charged_micros` integer NOT NULL,
	`uncovered_micros` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `uncovered_created_idx` ON `uncovered_costs` (`created_at`);--> statement-breakpoint
ALTER TABLE `models` ADD `image_output_usd` text DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `web_search_usd` text DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `reasoning_usd` text DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `audio_usd` text DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE `models` ADD `cache_write_usd` text DEFAULT '0' NOT NULL;