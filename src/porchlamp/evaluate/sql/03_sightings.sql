-- SPEC §5 (templates): comments and reviews by accounts that are not bots by name or type, each
-- with its stored fingerprint where the text is long enough to be a template (`fp`; `own_fp` asks
-- only for the words, see `04_bots.sql`), and whether it came within minutes of its PR opening or
-- being marked ready ("fast").
CREATE OR REPLACE TEMP TABLE j_sightings AS
SELECT i.rk, i.number, p.created_at >= getvariable('win_start') AS in_window, i.node_id, i.ts, a.norm AS login, coalesce(i.actor_low = lower(nullif(p.author, '')), false) AS by_author,
       CASE WHEN i.chars >= getvariable('min_chars') AND i.words >= getvariable('min_words') THEN i.fp END AS fp,
       CASE WHEN i.words >= getvariable('min_words') THEN i.fp END AS own_fp,
       coalesce(i.curated, false) AS curated, i.redirect IS NOT NULL AS redirect,
       (i.ts BETWEEN p.created_at AND p.created_at + to_minutes(getvariable('automated_minutes')))
       OR EXISTS (SELECT 1 FROM j_items r WHERE r.rk = i.rk AND r.number = i.number AND r.kind = 'ready_for_review'
                  AND i.ts BETWEEN r.ts AND r.ts + to_minutes(getvariable('automated_minutes'))) AS fast
FROM j_items i
JOIN j_accounts a ON a.rk = i.rk AND a.login = i.actor AND a.type IS NOT DISTINCT FROM i.actor_type
LEFT JOIN j_pulls p ON p.rk = i.rk AND p.number = i.number
WHERE i.kind IN ('comment', 'review') AND NOT (a.typed OR (NOT a.human AND a.named));
