DROP INDEX `transactions_hash_idx`;--> statement-breakpoint
-- The index holds a hash's first 8 bytes (it held the last 8): lookups compare the whole hash after
-- it as before, and a search by a hash's first characters reads a range of it. drizzle-kit 0.31
-- writes this expression as (`substr("hash_key"`,` 1`,` 8)`), splitting it at its commas: written by hand.
CREATE INDEX `transactions_hash_idx` ON `ledger_rows` (substr("hash_key", 1, 8)) WHERE hash_key IS NOT NULL;
