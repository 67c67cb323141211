ALTER TABLE `verification_runs` ADD `rejected_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `verification_runs` ADD `rejected` text DEFAULT '[]' NOT NULL;