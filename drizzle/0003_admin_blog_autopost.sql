CREATE TABLE `autopost_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`slot` integer,
	`status` text NOT NULL,
	`model_id` text,
	`post_id` text,
	`error` text,
	`cost_nano_usd` integer DEFAULT 0 NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `autopost_runs_slot_unique` ON `autopost_runs` (`slot`);--> statement-breakpoint
CREATE INDEX `autopost_runs_started_idx` ON `autopost_runs` (`started_at`);--> statement-breakpoint
CREATE TABLE `autopost_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`is_enabled` integer DEFAULT false NOT NULL,
	`start_time` text DEFAULT '10:00' NOT NULL,
	`interval_hours` integer DEFAULT 1 NOT NULL,
	`active_since` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `blog_posts` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`content` text NOT NULL,
	`cover_image` text,
	`meta_title` text NOT NULL,
	`meta_description` text NOT NULL,
	`keywords` text NOT NULL,
	`model_id` text NOT NULL,
	`model_name` text NOT NULL,
	`views` integer DEFAULT 0 NOT NULL,
	`published_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `blog_posts_slug_unique` ON `blog_posts` (`slug`);--> statement-breakpoint
CREATE INDEX `blog_posts_published_idx` ON `blog_posts` (`published_at`);--> statement-breakpoint
CREATE INDEX `blog_posts_model_idx` ON `blog_posts` (`model_id`);--> statement-breakpoint
ALTER TABLE `users` ADD `deleted_at` integer;--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `actor_id` text REFERENCES users(id);--> statement-breakpoint
ALTER TABLE `usage_daily` ADD `upstream_cost_nano_usd` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Backfill the provider cost of requests logged before the rollup kept it (Moscow days, UTC+3).
UPDATE `usage_daily` SET `upstream_cost_nano_usd` = `agg`.`nano`
FROM (
	SELECT `user_id`, date(`created_at` / 1000 + 10800, 'unixepoch') AS `day`, coalesce(`api_key_id`, '') AS `api_key_id`, `model`,
		cast(round(sum(cast(`upstream_cost_usd` AS real)) * 1000000000) AS integer) AS `nano`
	FROM `usage_logs` WHERE `upstream_cost_usd` IS NOT NULL GROUP BY 1, 2, 3, 4
) AS `agg`
WHERE `usage_daily`.`user_id` = `agg`.`user_id` AND `usage_daily`.`day` = `agg`.`day`
	AND `usage_daily`.`api_key_id` = `agg`.`api_key_id` AND `usage_daily`.`model` = `agg`.`model`;
