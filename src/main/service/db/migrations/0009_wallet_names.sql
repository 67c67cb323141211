CREATE TABLE `wallet_addresses` (
	`wallet_id` text NOT NULL,
	`chain_id` text NOT NULL,
	`address` text NOT NULL,
	`label` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`wallet_id`, `chain_id`, `address`),
	FOREIGN KEY (`wallet_id`) REFERENCES `wallets`(`wallet_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`chain_id`) REFERENCES `chains`(`chain_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `wallet_addresses_chain_address_idx` ON `wallet_addresses` (`chain_id`,`address`);--> statement-breakpoint
ALTER TABLE `wallets` ADD `notes` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `wallets_name_idx` ON `wallets` (lower("name")) WHERE "wallets"."name" <> '';