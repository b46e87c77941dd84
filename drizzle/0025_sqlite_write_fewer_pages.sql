DROP INDEX `holds_instance_idx`;--> statement-breakpoint
DROP INDEX `holds_lease_idx`;--> statement-breakpoint
DROP INDEX `holds_key_idx`;--> statement-breakpoint
DROP INDEX `ledger_team_created_idx`;--> statement-breakpoint
CREATE INDEX `ledger_team_created_idx` ON `ledger_entries` (`team_id`,`created_at`) WHERE "ledger_entries"."team_id" is not null;--> statement-breakpoint
DROP INDEX `usage_team_created_id_idx`;--> statement-breakpoint
CREATE INDEX `usage_team_created_id_idx` ON `usage_logs` (`team_id`,`created_at`,`id`) WHERE "usage_logs"."team_id" is not null;