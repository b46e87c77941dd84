-- Data migration (hand-written; issue 23): the key's monthly limit becomes its budget with period
-- "month", and the current Moscow month's spend so far counts as already spent, so nobody's limit
-- resets on upgrade. Every key gets the counter (spend is counted with or without a limit).
-- Moscow is UTC+3 all year: the month starts at the 1st 00:00 of (UTC now + 3 h), minus 3 h.
UPDATE "api_keys" SET
  "budget_limit_micros" = "monthly_limit_micros",
  "budget_period" = 'month',
  "budget_period_start" = (extract(epoch from date_trunc('month', (now() at time zone 'UTC') + interval '3 hours') - interval '3 hours') * 1000)::bigint,
  "budget_spent_micros" = coalesce((
    select sum(u."cost_micros") from "usage_logs" u
     where u."api_key_id" = "api_keys"."id"
       and u."created_at" >= (extract(epoch from date_trunc('month', (now() at time zone 'UTC') + interval '3 hours') - interval '3 hours') * 1000)::bigint
  ), 0);
