CREATE TABLE `verification_chunks` (
	`run_id` text NOT NULL,
	`first_idx` integer NOT NULL,
	`item_count` integer NOT NULL,
	`matched` integer NOT NULL,
	`mismatched` integer NOT NULL,
	`not_found` integer NOT NULL,
	`claims` text NOT NULL,
	`outcomes` text NOT NULL,
	PRIMARY KEY(`run_id`, `first_idx`),
	FOREIGN KEY (`run_id`) REFERENCES `verification_runs`(`run_id`) ON UPDATE no action ON DELETE cascade
);
