CREATE TABLE `api_key_wallets` (
	`api_key` text NOT NULL,
	`wallet_id` text NOT NULL,
	PRIMARY KEY(`api_key`, `wallet_id`),
	FOREIGN KEY (`api_key`) REFERENCES `api_keys`(`api_key`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`api_key` text PRIMARY KEY NOT NULL,
	`label` text NOT NULL,
	`all_wallets` integer NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	`last_used_at` integer
);
--> statement-breakpoint
CREATE TABLE `chains` (
	`chain_id` text PRIMARY KEY NOT NULL,
	`chain_identifier` text NOT NULL,
	`name` text NOT NULL,
	`native_token_id` text NOT NULL,
	`is_testnet` integer DEFAULT false NOT NULL,
	`confirmations` integer NOT NULL,
	`explorer_url` text NOT NULL,
	`explorer_tx_template` text NOT NULL,
	`explorer_address_template` text NOT NULL,
	`user_modified` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `chains_identifier_idx` ON `chains` (`chain_identifier`);--> statement-breakpoint
CREATE TABLE `import_rejections` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`import_id` text NOT NULL,
	`row_number` integer NOT NULL,
	`column` text NOT NULL,
	`reason` text NOT NULL,
	FOREIGN KEY (`import_id`) REFERENCES `imports`(`import_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `import_rejections_import_idx` ON `import_rejections` (`import_id`,`row_number`);--> statement-breakpoint
CREATE TABLE `imports` (
	`import_id` text PRIMARY KEY NOT NULL,
	`file_name` text NOT NULL,
	`file_sha256` text NOT NULL,
	`file_size` integer NOT NULL,
	`format` text NOT NULL,
	`preset` text NOT NULL,
	`rows_total` integer NOT NULL,
	`added` integer NOT NULL,
	`updated` integer NOT NULL,
	`unchanged` integer NOT NULL,
	`rejected` integer NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ticket_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ticket_id` text NOT NULL,
	`kind` text NOT NULL,
	`from_status` text,
	`to_status` text,
	`note` text DEFAULT '' NOT NULL,
	`actor` text DEFAULT '' NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`ticket_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ticket_events_ticket_idx` ON `ticket_events` (`ticket_id`,`id`);--> statement-breakpoint
CREATE TABLE `tickets` (
	`ticket_id` text PRIMARY KEY NOT NULL,
	`wallet_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`status` text NOT NULL,
	`abnormals` text NOT NULL,
	`desc` text NOT NULL,
	`claimed` text NOT NULL,
	`run_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tickets_wallet_status_idx` ON `tickets` (`wallet_id`,`status`,`updated_at`);--> statement-breakpoint
CREATE INDEX `tickets_tx_status_idx` ON `tickets` (`transaction_id`,`status`);--> statement-breakpoint
CREATE TABLE `tokens` (
	`token_id` text PRIMARY KEY NOT NULL,
	`chain_id` text NOT NULL,
	`symbol` text NOT NULL,
	`name` text NOT NULL,
	`contract_address` text DEFAULT '' NOT NULL,
	`decimals` integer NOT NULL,
	`is_native` integer DEFAULT false NOT NULL,
	`dust_threshold` text DEFAULT '0' NOT NULL,
	`user_modified` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`chain_id`) REFERENCES `chains`(`chain_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tokens_chain_idx` ON `tokens` (`chain_id`,`token_id`);--> statement-breakpoint
CREATE TABLE `transactions` (
	`transaction_id` text PRIMARY KEY NOT NULL,
	`wallet_id` text NOT NULL,
	`request_id` text,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`amount` text NOT NULL,
	`to` text,
	`fee_ratio` text,
	`fee_fixed` text,
	`fee` text,
	`er` text,
	`amount_actual` text,
	`hash` text,
	`chain_id` text NOT NULL,
	`token_id` text NOT NULL,
	`created_at` integer,
	`confirmed_at` integer,
	`completed_at` integer,
	`import_id` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`wallet_id`) REFERENCES `wallets`(`wallet_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `transactions_hash_idx` ON `transactions` (`hash`,`chain_id`);--> statement-breakpoint
CREATE INDEX `transactions_request_idx` ON `transactions` (`request_id`);--> statement-breakpoint
CREATE INDEX `transactions_wallet_created_idx` ON `transactions` (`wallet_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_chain_token_idx` ON `transactions` (`chain_id`,`token_id`);--> statement-breakpoint
CREATE TABLE `used_nonces` (
	`api_key` text NOT NULL,
	`nonce` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`api_key`, `nonce`)
);
--> statement-breakpoint
CREATE INDEX `used_nonces_expiry_idx` ON `used_nonces` (`expires_at`);--> statement-breakpoint
CREATE TABLE `verification_results` (
	`run_id` text NOT NULL,
	`idx` integer NOT NULL,
	`claimed` text NOT NULL,
	`transaction_id` text,
	`result` integer NOT NULL,
	`flags` text NOT NULL,
	`ticket_id` text,
	PRIMARY KEY(`run_id`, `idx`),
	FOREIGN KEY (`run_id`) REFERENCES `verification_runs`(`run_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `verification_runs` (
	`run_id` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`api_key` text,
	`label` text DEFAULT '' NOT NULL,
	`wallet_id` text,
	`shape` text DEFAULT 'A' NOT NULL,
	`options` text DEFAULT '{}' NOT NULL,
	`item_count` integer NOT NULL,
	`matched` integer NOT NULL,
	`mismatched` integer NOT NULL,
	`not_found` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `verification_runs_created_idx` ON `verification_runs` (`created_at`);--> statement-breakpoint
CREATE TABLE `wallets` (
	`wallet_id` text PRIMARY KEY NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
