-- SPEC §5 (templates): comments and reviews by accounts that are not bots by name or type, each
-- with its stored fingerprint where the text is long enough to be a template (`fp`; `own_fp` asks
-- only for the words, see `04_bots.sql`), and whether it came within minutes of its PR opening or
-- being marked ready ("fast").
CREATE OR REPLACE TEMP TABLE j_sightings AS
SELECT i.rk, i.number, p.created_at >= getvariable('win_start') AS in_window, i.node_id, i.ts, a.norm AS login, coalesce(i.actor_low = lower(nullif(p.author, '')), false) AS by_author,
       CASE WHEN i.chars >= getvariable('min_chars') AND i.words >= getvariable('min_words') THEN i.fp END AS fp,
       CASE WHEN i.words >= getvariable('min_words') THEN i.fp END AS own_fp,
       coalesce(i.curated, false) AS curated, i.redirect IS NOT NULL AS redirect,
       list_bool_or(list_transform(p.starts, lambda t: i.ts BETWEEN t AND t + to_minutes(getvariable('automated_minutes')))) AS fast
FROM j_items i
JOIN j_accounts a ON a.rk = i.rk AND a.login = i.actor AND a.type IS NOT DISTINCT FROM i.actor_type
LEFT JOIN (
    -- Each PR with when it opened and when it was marked ready, in one list (`starts`): a
    -- subquery per comment for the second cost a second at 11,000 repositories.
    SELECT p.rk, p.number, p.created_at, p.author, list_concat([p.created_at], coalesce(r.at, [])) AS starts
    FROM j_pulls p
    LEFT JOIN (SELECT rk, number, list(ts) AS at FROM j_items WHERE kind = 'ready_for_review' GROUP BY rk, number) r
           ON r.rk = p.rk AND r.number = p.number
) p ON p.rk = i.rk AND p.number = i.number
WHERE i.kind IN ('comment', 'review') AND NOT (a.typed OR (NOT a.human AND a.named));
