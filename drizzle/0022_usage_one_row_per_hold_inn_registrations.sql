CREATE TABLE `inn_first_registrations` (
	`inn` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`registered_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `team_companies` ADD `inn_confirmation` text DEFAULT 'not_needed' NOT NULL;--> statement-breakpoint
ALTER TABLE `team_companies` ADD `inn_reviewed_at` integer;--> statement-breakpoint
ALTER TABLE `team_companies` ADD `inn_reviewed_by` text;--> statement-breakpoint
CREATE INDEX `team_companies_inn_idx` ON `team_companies` (`inn`);--> statement-breakpoint
CREATE UNIQUE INDEX `usage_hold_idx` ON `usage_logs` (`hold_id`);