DROP INDEX `transactions_hash_idx`;--> statement-breakpoint
DROP INDEX `transactions_created_idx`;--> statement-breakpoint
-- drizzle-kit 0.31 writes this expression as (`substr("hash"`,` -16)`): it splits an index's expression at its commas. Written by hand.
CREATE INDEX `transactions_hash_idx` ON `transactions` (substr("hash", -16)) WHERE hash IS NOT NULL;--> statement-breakpoint
CREATE INDEX `transactions_created_idx` ON `transactions` ("created_at" desc);
