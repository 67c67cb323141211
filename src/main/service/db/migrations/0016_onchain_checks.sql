CREATE TABLE `ignored_tokens` (
	`chain_id` text NOT NULL,
	`contract_address` text NOT NULL,
	`symbol` text DEFAULT '' NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`ignored_at` integer NOT NULL,
	PRIMARY KEY(`chain_id`, `contract_address`)
);
--> statement-breakpoint
CREATE TABLE `onchain_checks` (
	`check_id` text PRIMARY KEY NOT NULL,
	`scope_key` text NOT NULL,
	`wallet_id` text,
	`period_from` integer,
	`period_to` integer,
	`time_zone` text DEFAULT 'UTC' NOT NULL,
	`state` text NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	`without_hash` integer DEFAULT 0 NOT NULL,
	`cursor` integer DEFAULT 0 NOT NULL,
	`agrees` integer DEFAULT 0 NOT NULL,
	`differs` integer DEFAULT 0 NOT NULL,
	`pending` integer DEFAULT 0 NOT NULL,
	`not_found` integer DEFAULT 0 NOT NULL,
	`unchecked` integer DEFAULT 0 NOT NULL,
	`retries` integer DEFAULT 0 NOT NULL,
	`resumed` integer DEFAULT 0 NOT NULL,
	`error` text DEFAULT '' NOT NULL,
	`actor` text DEFAULT '' NOT NULL,
	`started_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `onchain_checks_scope_idx` ON `onchain_checks` (`scope_key`,`started_at`);--> statement-breakpoint
CREATE INDEX `onchain_checks_started_idx` ON `onchain_checks` (`started_at`);--> statement-breakpoint
CREATE TABLE `onchain_results` (
	`check_id` text NOT NULL,
	`record_no` integer NOT NULL,
	`transaction_id` text NOT NULL,
	`wallet_id` text NOT NULL,
	`chain_id` text NOT NULL,
	`token_id` text NOT NULL,
	`hash` text NOT NULL,
	`outcome` text NOT NULL,
	`fields` text DEFAULT '' NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`chain` text DEFAULT '{}' NOT NULL,
	`confirmations` integer,
	`block_number` text,
	`ticket_id` text,
	`checked_at` integer NOT NULL,
	PRIMARY KEY(`check_id`, `record_no`),
	FOREIGN KEY (`check_id`) REFERENCES `onchain_checks`(`check_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `onchain_results_outcome_idx` ON `onchain_results` (`check_id`,`outcome`,`record_no`);--> statement-breakpoint
ALTER TABLE `chains` ADD `network_id` text DEFAULT '' NOT NULL;