-- transaction_id: unique through an index of its own (droppable by a bulk import) instead of the primary key;
-- rows keep their rowid. hash and request_id: indexed only where recorded.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_transactions` (
	`transaction_id` text NOT NULL,
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
INSERT INTO `__new_transactions`("rowid", "transaction_id", "wallet_id", "request_id", "type", "status", "amount", "to", "fee_ratio", "fee_fixed", "fee", "er", "amount_actual", "hash", "chain_id", "token_id", "created_at", "confirmed_at", "completed_at", "import_id", "updated_at") SELECT "rowid", "transaction_id", "wallet_id", "request_id", "type", "status", "amount", "to", "fee_ratio", "fee_fixed", "fee", "er", "amount_actual", "hash", "chain_id", "token_id", "created_at", "confirmed_at", "completed_at", "import_id", "updated_at" FROM `transactions`;--> statement-breakpoint
DROP TABLE `transactions`;--> statement-breakpoint
ALTER TABLE `__new_transactions` RENAME TO `transactions`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_id_idx` ON `transactions` (`transaction_id`);--> statement-breakpoint
CREATE INDEX `transactions_hash_idx` ON `transactions` (`hash`,`chain_id`) WHERE hash IS NOT NULL;--> statement-breakpoint
CREATE INDEX `transactions_request_idx` ON `transactions` (`request_id`) WHERE request_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `transactions_wallet_created_idx` ON `transactions` (`wallet_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_chain_token_idx` ON `transactions` (`chain_id`,`token_id`);--> statement-breakpoint
CREATE INDEX `transactions_created_idx` ON `transactions` ("created_at" desc,`transaction_id`);