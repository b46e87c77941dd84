-- Data migration (hand-written; issue 23): the key's monthly limit becomes its budget with period
-- "month", and the current Moscow month's spend so far counts as already spent, so nobody's limit
-- resets on upgrade. Every key gets the counter (spend is counted with or without a limit).
UPDATE `api_keys` SET
  `budget_limit_micros` = `monthly_limit_micros`,
  `budget_period` = 'month',
  `budget_period_start` = (CAST(strftime('%s', datetime('now', '+3 hours', 'start of month')) AS INTEGER) - 10800) * 1000,
  `budget_spent_micros` = COALESCE((
    SELECT SUM(u.`cost_micros`) FROM `usage_logs` u
     WHERE u.`api_key_id` = `api_keys`.`id`
       AND u.`created_at` >= (CAST(strftime('%s', datetime('now', '+3 hours', 'start of month')) AS INTEGER) - 10800) * 1000
  ), 0);
