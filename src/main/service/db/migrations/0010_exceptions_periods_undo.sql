CREATE TABLE `import_replaced` (
	`import_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`previous` text NOT NULL,
	`previous_import_id` text,
	PRIMARY KEY(`import_id`, `transaction_id`),
	FOREIGN KEY (`import_id`) REFERENCES `imports`(`import_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `import_replaced_previous_idx` ON `import_replaced` (`previous_import_id`);--> statement-breakpoint
CREATE TABLE `run_unbooked` (
	`run_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`ticket_id` text,
	PRIMARY KEY(`run_id`, `transaction_id`),
	FOREIGN KEY (`run_id`) REFERENCES `verification_runs`(`run_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `imports` ADD `undone_at` integer;--> statement-breakpoint
ALTER TABLE `imports` ADD `undone_by` text;--> statement-breakpoint
ALTER TABLE `tickets` ADD `kind` text DEFAULT 'mismatch' NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `subject` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `chain_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `token_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `amount` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `tickets_kind_subject_idx` ON `tickets` (`kind`,`subject`,`status`);--> statement-breakpoint
CREATE INDEX `tickets_status_updated_idx` ON `tickets` (`status`,`updated_at`);--> statement-breakpoint
ALTER TABLE `verification_chunks` ADD `duplicates` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `verification_runs` ADD `two_way` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `verification_runs` ADD `period_from` integer;--> statement-breakpoint
ALTER TABLE `verification_runs` ADD `period_to` integer;--> statement-breakpoint
ALTER TABLE `verification_runs` ADD `not_in_books` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `verification_runs` ADD `duplicates` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `tickets` SET
	`subject` = `transaction_id`,
	`chain_id` = coalesce((SELECT `chain_id` FROM `transactions` t WHERE t.`transaction_id` = `tickets`.`transaction_id`), ''),
	`token_id` = coalesce((SELECT `token_id` FROM `transactions` t WHERE t.`transaction_id` = `tickets`.`transaction_id`), ''),
	`amount` = coalesce((SELECT `amount` FROM `transactions` t WHERE t.`transaction_id` = `tickets`.`transaction_id`), '');
