ALTER TABLE `holds` ADD `lease_token` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `holds` ADD `generation_id` text;--> statement-breakpoint
ALTER TABLE `holds` ADD `generation` text;