-- SPEC §5 (templates): the snapshot's templates and the accounts that post them in many
-- repositories, over every repository's sightings (`03_sightings.sql`).
-- A text is a template when it appears on min_prs PRs and nearly always within minutes of a PR
-- opening ("automated"), or in min_repos repositories ("repeated").
CREATE OR REPLACE TEMP TABLE j_found AS
SELECT fp, CASE WHEN fast >= getvariable('automated_share') * prs THEN 'automated' ELSE 'repeated' END AS how
FROM (SELECT fp, count(DISTINCT (rk, number)) AS prs, count(DISTINCT rk) AS repos, count_if(fast) AS fast
      FROM j_sightings WHERE fp IS NOT NULL GROUP BY fp)
WHERE prs >= getvariable('min_prs') AND (fast >= getvariable('automated_share') * prs OR repos >= getvariable('min_repos'));

-- An account whose comments are nearly all templates, in two or more repositories, acts as a bot.
CREATE OR REPLACE TEMP TABLE j_behaviour AS
SELECT s.login, count(*) FILTER (WHERE f.fp IS NOT NULL) AS n, count(*) AS total,
       count(DISTINCT s.rk) FILTER (WHERE f.fp IS NOT NULL) AS repos,
       'acts as a bot: ' || count(*) FILTER (WHERE f.fp IS NOT NULL) || ' of its ' || count(*) || ' comments are templates, in '
           || count(DISTINCT s.rk) FILTER (WHERE f.fp IS NOT NULL) || ' repositories' AS why
FROM j_sightings s LEFT JOIN j_found f ON f.fp = s.fp
GROUP BY s.login
HAVING count(*) >= getvariable('behaviour_min_comments')
   AND count(*) FILTER (WHERE f.fp IS NOT NULL) >= getvariable('behaviour_share') * count(*)
   AND count(DISTINCT s.rk) FILTER (WHERE f.fp IS NOT NULL) >= 2;
