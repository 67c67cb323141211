ALTER TABLE `import_rejections` ADD `value` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `transactions` ADD `movement` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Records imported before: a token transfer comes after its transaction's native transfer (its log index is not known).
UPDATE `transactions` SET `movement` = 1000000 WHERE `token_id` NOT IN (SELECT `native_token_id` FROM `chains`);
