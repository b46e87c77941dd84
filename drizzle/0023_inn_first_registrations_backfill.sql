-- Data migration (hand-written; issue 33): the teams whose company details already name an INN.
-- Each INN's first registrant is the team that first saved it (its earliest «company.updated» audit
-- entry with that INN, else its last save), ties broken by team id; every other team with the same
-- INN waits for the site admin's confirmation, as a team registering it from now on would.
INSERT INTO `inn_first_registrations` (`inn`, `team_id`, `registered_at`)
SELECT `inn`, `team_id`, `registered_at` FROM (
  SELECT `inn`, `team_id`, `registered_at`,
         ROW_NUMBER() OVER (PARTITION BY `inn` ORDER BY `registered_at`, `team_id`) AS `n`
    FROM (
      SELECT c.`inn`, c.`team_id`,
             COALESCE((SELECT MIN(a.`at`) FROM `team_audit` a
                        WHERE a.`team_id` = c.`team_id` AND a.`action` = 'company.updated' AND a.`target` LIKE '%ИНН ' || c.`inn`),
                      c.`updated_at`) AS `registered_at`
        FROM `team_companies` c
    ) r
) ranked
WHERE `n` = 1
ON CONFLICT DO NOTHING;
--> statement-breakpoint
UPDATE `team_companies` SET `inn_confirmation` = 'pending'
 WHERE `inn_confirmation` = 'not_needed'
   AND NOT EXISTS (SELECT 1 FROM `inn_first_registrations` f WHERE f.`inn` = `team_companies`.`inn` AND f.`team_id` = `team_companies`.`team_id`);
