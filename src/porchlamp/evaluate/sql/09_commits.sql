-- SPEC §6 gate 4 (activity) and the review trailers: the commits a repository is judged on,
-- newest first: the newest `commit_sample` of the window, and when all of those are bots, older
-- ones of the window down to the first by a person (the collector reads exactly these). A commit
-- is a bot's when its author's account is, or, with no linked account, its author's name. What
-- the gates read of it, one row per repository: how many commits, how many by people and how many
-- of those carry a review trailer (SPEC §6), and the newest by a person.
CREATE OR REPLACE TEMP TABLE j_commits AS
WITH judged AS (
    SELECT c.rk, c.oid, c.committed_at, c.author_login, c.author_name, c.author_type, c.message,
           coalesce(CASE WHEN nullif(c.author_login, '') IS NULL THEN c.author_type = 'Bot' ELSE lb.bot END, false)
           OR coalesce(c.author_login IS NULL AND nb.bot, false) AS bot,
           row_number() OVER (PARTITION BY c.rk ORDER BY c.committed_at DESC, c.oid DESC) AS place
    FROM (SELECT repo_key(repo) AS rk, * FROM commits) c
    LEFT JOIN j_bots lb ON lb.rk = c.rk AND lb.login = nullif(c.author_login, '') AND lb.type IS NOT DISTINCT FROM c.author_type
    LEFT JOIN j_bots nb ON nb.rk = c.rk AND nb.login = nullif(c.author_name, '') AND nb.type IS NULL
    WHERE c.committed_at >= getvariable('win_start') AND c.committed_at < getvariable('win_end')
), reach AS (
    SELECT rk, coalesce(bool_and(bot) FILTER (WHERE place <= getvariable('commit_sample')), false) AS all_bots,
           min(place) FILTER (WHERE NOT bot AND place > getvariable('commit_sample')) AS first_person
    FROM judged GROUP BY rk
)
SELECT k.repo, a.* FROM (
SELECT j.rk, count(*) AS commits_read, count(*) FILTER (WHERE NOT j.bot) AS human_commits,
       arg_min(j.oid, j.place) FILTER (WHERE NOT j.bot) AS last_human_oid,
       arg_min(j.committed_at, j.place) FILTER (WHERE NOT j.bot) AS last_human_at,
       arg_min(coalesce(j.author_login, j.author_name), j.place) FILTER (WHERE NOT j.bot) AS last_human_author,
       arg_min(j.message, j.place) FILTER (WHERE NOT j.bot) AS last_human_message,
       count(*) FILTER (WHERE NOT j.bot AND EXISTS (SELECT 1 FROM rule_trailers t WHERE contains(lower(j.message), t.trailer)))
           AS human_trailers
FROM judged j JOIN reach r USING (rk)
WHERE j.place <= getvariable('commit_sample') OR (r.all_bots AND (r.first_person IS NULL OR j.place <= r.first_person))
GROUP BY j.rk
) a JOIN j_repo_keys k ON k.rk = a.rk;
