CREATE TABLE `upstream_incidents` (
	`id` text PRIMARY KEY NOT NULL,
	`upstream` text NOT NULL,
	`instance_id` text NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`checked_at` integer NOT NULL,
	`reason` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `upstream_incidents_started_idx` ON `upstream_incidents` (`started_at`);--> statement-breakpoint
ALTER TABLE `usage_logs` ADD `upstream` text DEFAULT 'primary' NOT NULL;