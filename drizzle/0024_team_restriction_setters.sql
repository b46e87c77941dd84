ALTER TABLE `api_keys` ADD `disabled_by` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `disabled_by_role` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `budget_set_by` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `budget_set_by_role` text;--> statement-breakpoint
ALTER TABLE `team_members` ADD `budget_set_by` text;--> statement-breakpoint
ALTER TABLE `team_members` ADD `budget_set_by_role` text;