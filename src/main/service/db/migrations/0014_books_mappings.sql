CREATE TABLE `books_mappings` (
	`mapping_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`named` integer DEFAULT false NOT NULL,
	`header_key` text NOT NULL,
	`headers` text NOT NULL,
	`wallet_id` text,
	`mapping` text NOT NULL,
	`options` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`used_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `books_mappings_name_idx` ON `books_mappings` (lower("name"));--> statement-breakpoint
CREATE INDEX `books_mappings_header_idx` ON `books_mappings` (`header_key`,`used_at`);