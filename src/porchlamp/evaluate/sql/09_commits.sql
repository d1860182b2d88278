-- SPEC §6 gate 4 (activity) and the review trailers: the commits a repository is judged on,
-- newest first: the newest `commit_sample` of the window, and when all of those are bots, older
-- ones of the window down to the first by a person (the collector reads exactly these). A commit
-- is a bot's when its author's account is, or, with no linked account, its author's name. Each
-- says whether its message carries a review trailer (SPEC §6); only the newest commit by a person
-- keeps its message, the one the evidence quotes.
CREATE OR REPLACE TEMP TABLE j_commits AS
WITH judged AS (
    SELECT c.repo, c.oid, c.committed_at, c.author_login, c.author_name, c.author_type, c.message,
           coalesce(CASE WHEN nullif(c.author_login, '') IS NULL THEN c.author_type = 'Bot' ELSE lb.bot END, false)
           OR coalesce(c.author_login IS NULL AND nb.bot, false) AS bot,
           row_number() OVER (PARTITION BY c.repo ORDER BY c.committed_at DESC, c.oid DESC) AS place
    FROM commits c
    LEFT JOIN j_bots lb ON lb.repo = c.repo AND lb.login = nullif(c.author_login, '') AND lb.type IS NOT DISTINCT FROM c.author_type
    LEFT JOIN j_bots nb ON nb.repo = c.repo AND nb.login = nullif(c.author_name, '') AND nb.type IS NULL
    WHERE c.committed_at >= getvariable('win_start') AND c.committed_at < getvariable('win_end')
), reach AS (
    SELECT repo, coalesce(bool_and(bot) FILTER (WHERE place <= getvariable('commit_sample')), false) AS all_bots,
           min(place) FILTER (WHERE NOT bot AND place > getvariable('commit_sample')) AS first_person
    FROM judged GROUP BY repo
)
SELECT j.* EXCLUDE (message),
       CASE WHEN NOT j.bot AND j.place = min(j.place) FILTER (WHERE NOT j.bot) OVER (PARTITION BY j.repo) THEN j.message END AS message,
       EXISTS (SELECT 1 FROM rule_trailers t WHERE contains(lower(j.message), t.trailer)) AS trailer
FROM judged j JOIN reach r USING (repo)
WHERE j.place <= getvariable('commit_sample') OR (r.all_bots AND (r.first_person IS NULL OR j.place <= r.first_person));
