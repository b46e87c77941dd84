CREATE TABLE `stored_responses` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`team_id` text,
	`parent_id` text,
	`model` text NOT NULL,
	`status` text NOT NULL,
	`input` text NOT NULL,
	`output` text NOT NULL,
	`usage` text,
	`response` text NOT NULL,
	`bytes` integer NOT NULL,
	`chain_bytes` integer NOT NULL,
	`depth` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `stored_responses_expires_idx` ON `stored_responses` (`expires_at`);