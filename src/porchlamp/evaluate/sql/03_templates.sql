-- SPEC §5 (templates): comments and reviews by accounts that are not bots by name or type, each
-- with its stored fingerprint where the text is long enough to be a template, and whether it came
-- within minutes of its PR opening or being marked ready ("fast").
CREATE OR REPLACE TEMP TABLE j_sightings AS
SELECT i.repo, i.number, a.norm AS login,
       CASE WHEN i.chars >= getvariable('min_chars') AND i.words >= getvariable('min_words') THEN i.fp END AS fp,
       (i.ts BETWEEN p.created_at AND p.created_at + to_minutes(getvariable('automated_minutes')))
       OR EXISTS (SELECT 1 FROM j_items r WHERE r.repo = i.repo AND r.number = i.number AND r.kind = 'ready_for_review'
                  AND i.ts BETWEEN r.ts AND r.ts + to_minutes(getvariable('automated_minutes'))) AS fast
FROM j_items i
JOIN j_accounts a ON a.repo = i.repo AND a.login = i.actor AND a.type IS NOT DISTINCT FROM i.actor_type
LEFT JOIN pulls p ON p.repo = i.repo AND p.number = i.number
WHERE i.kind IN ('comment', 'review') AND NOT (a.typed OR (NOT a.human AND a.named));

-- A text is a template when it appears on min_prs PRs and nearly always within minutes of a PR
-- opening ("automated"), or in min_repos repositories ("repeated").
CREATE OR REPLACE TEMP TABLE j_found AS
SELECT fp, CASE WHEN fast >= getvariable('automated_share') * prs THEN 'automated' ELSE 'repeated' END AS how
FROM (SELECT fp, count(DISTINCT (repo, number)) AS prs, count(DISTINCT repo) AS repos, count_if(fast) AS fast
      FROM j_sightings WHERE fp IS NOT NULL GROUP BY fp)
WHERE prs >= getvariable('min_prs') AND (fast >= getvariable('automated_share') * prs OR repos >= getvariable('min_repos'));

-- An account whose comments are nearly all templates, in two or more repositories, acts as a bot.
CREATE OR REPLACE TEMP TABLE j_behaviour AS
SELECT s.login, count(*) FILTER (WHERE f.fp IS NOT NULL) AS n, count(*) AS total,
       count(DISTINCT s.repo) FILTER (WHERE f.fp IS NOT NULL) AS repos,
       'acts as a bot: ' || count(*) FILTER (WHERE f.fp IS NOT NULL) || ' of its ' || count(*) || ' comments are templates, in '
           || count(DISTINCT s.repo) FILTER (WHERE f.fp IS NOT NULL) || ' repositories' AS why
FROM j_sightings s LEFT JOIN j_found f ON f.fp = s.fp
GROUP BY s.login
HAVING count(*) >= getvariable('behaviour_min_comments')
   AND count(*) FILTER (WHERE f.fp IS NOT NULL) >= getvariable('behaviour_share') * count(*)
   AND count(DISTINCT s.repo) FILTER (WHERE f.fp IS NOT NULL) >= 2;
