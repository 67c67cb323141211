-- Runs stored before chunks: their result rows become chunks of 1000 (runs were always stored in chunks of 1000 from idx 0).
INSERT INTO `verification_chunks` (`run_id`, `first_idx`, `item_count`, `matched`, `mismatched`, `not_found`, `claims`, `outcomes`)
SELECT `run_id`, min(`idx`), count(*), sum(`result` = 1), sum(`result` = 0 AND `transaction_id` IS NOT NULL), sum(`transaction_id` IS NULL),
  '[' || group_concat(`claimed`, ',' ORDER BY `idx`) || ']',
  json_group_array(json_array(`transaction_id`, `result`, json(`flags`), `ticket_id`) ORDER BY `idx`)
FROM `verification_results` GROUP BY `run_id`, `idx` / 1000;
--> statement-breakpoint
DROP TABLE `verification_results`;
