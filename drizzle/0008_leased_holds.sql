CREATE TABLE `leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`until` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `holds` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`api_key_id` text,
	`amount_micros` integer NOT NULL,
	`instance_id` text NOT NULL,
	`lease_until` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `holds_instance_idx` ON `holds` (`instance_id`);--> statement-breakpoint
CREATE INDEX `holds_lease_idx` ON `holds` (`lease_until`);--> statement-breakpoint
CREATE INDEX `holds_key_idx` ON `holds` (`api_key_id`);--> statement-breakpoint
-- Open holds used to live in the process and were given back at every start; from now on they are
-- rows. Nothing is in flight while this migration runs, so no reservation is left to keep.
UPDATE `users` SET `held_micros` = 0;