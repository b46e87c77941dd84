CREATE TABLE `pending_charges` (
	`id` text PRIMARY KEY NOT NULL,
	`reserve_id` text NOT NULL,
	`entry` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `holds` ADD `reserve` integer DEFAULT false NOT NULL;