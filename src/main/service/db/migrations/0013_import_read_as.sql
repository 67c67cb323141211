ALTER TABLE `imports` ADD `wallet_id` text;--> statement-breakpoint
ALTER TABLE `imports` ADD `read_as` text;