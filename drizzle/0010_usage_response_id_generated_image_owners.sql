CREATE TABLE `generated_images` (
	`name` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `generated_images_user_idx` ON `generated_images` (`user_id`);--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `response_id` text;