ALTER TABLE `chains` RENAME COLUMN "confirmations" TO "confirming_threshold";--> statement-breakpoint
ALTER TABLE `chains` RENAME COLUMN "explorer_tx_template" TO "explorer_tx_url";--> statement-breakpoint
ALTER TABLE `chains` RENAME COLUMN "explorer_address_template" TO "explorer_address_url";--> statement-breakpoint
ALTER TABLE `tokens` RENAME COLUMN "decimals" TO "decimal";--> statement-breakpoint
ALTER TABLE `chains` ADD `enabled` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `tokens` ADD `can_deposit` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `tokens` ADD `can_withdraw` integer DEFAULT true NOT NULL;