CREATE TABLE `act_counters` (
	`period` text PRIMARY KEY NOT NULL,
	`last` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `bank_payments` (
	`id` text PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`order_number` text NOT NULL,
	`order_date` text NOT NULL,
	`received_date` text,
	`amount_micros` integer NOT NULL,
	`payer_inn` text NOT NULL,
	`payer_kpp` text,
	`payer_name` text NOT NULL,
	`payer_account` text NOT NULL,
	`payer_bik` text NOT NULL,
	`purpose` text NOT NULL,
	`status` text NOT NULL,
	`reason` text,
	`invoice_number` text,
	`invoice_id` text,
	`imported_at` integer NOT NULL,
	`imported_by` text,
	`resolved_at` integer,
	`resolved_by` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bank_payments_key_unique` ON `bank_payments` (`key`);--> statement-breakpoint
CREATE INDEX `bank_payments_status_idx` ON `bank_payments` (`status`,`imported_at`);--> statement-breakpoint
CREATE TABLE `invoices` (
	`id` text PRIMARY KEY NOT NULL,
	`number` text NOT NULL,
	`team_id` text NOT NULL,
	`issued_by` text NOT NULL,
	`amount_micros` integer NOT NULL,
	`status` text NOT NULL,
	`issued_at` integer NOT NULL,
	`document` text NOT NULL,
	`buyer_inn` text NOT NULL,
	`sent_to` text,
	`paid_at` integer,
	`received_at` integer,
	`paid_micros` integer,
	`bank_payment_id` text,
	`paid_by` text,
	`cancelled_at` integer,
	`cancelled_by` text,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`issued_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_number_unique` ON `invoices` (`number`);--> statement-breakpoint
CREATE INDEX `invoices_team_issued_idx` ON `invoices` (`team_id`,`issued_at`);--> statement-breakpoint
CREATE INDEX `invoices_status_issued_idx` ON `invoices` (`status`,`issued_at`);--> statement-breakpoint
CREATE TABLE `team_acts` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`year` integer NOT NULL,
	`month` integer NOT NULL,
	`number` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_acts_number_unique` ON `team_acts` (`number`);--> statement-breakpoint
CREATE UNIQUE INDEX `team_acts_team_month_idx` ON `team_acts` (`team_id`,`year`,`month`);--> statement-breakpoint
CREATE TABLE `team_companies` (
	`team_id` text PRIMARY KEY NOT NULL,
	`inn` text NOT NULL,
	`kpp` text,
	`name` text NOT NULL,
	`address` text NOT NULL,
	`email` text NOT NULL,
	`updated_at` integer NOT NULL,
	`updated_by` text,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
