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

-- SPEC §3 (a PR by a bot): an account that opens author_template_prs or more PRs with one
-- description (its fingerprint: numbers, versions, links, hashes and mentions set aside), in one
-- repository or several, is a bot for its PRs. A description counts when it is long enough to be a
-- template (min_chars, min_words) and no other account's PR has it: a repository's own PR template,
-- filled in by many people, is never one account's mark. What is measured is one account posting one
-- text again and again, not texts that resemble each other. Repetition alone is not a bot: an account
-- that also writes in its own words (own_words_min texts, each of min_words, that it wrote once: a
-- comment, a review or another PR's description) is a person who pasted one explanation on a batch.
CREATE OR REPLACE TEMP TABLE j_repeat_authors AS
WITH bodies AS (
    SELECT lower(trim(author)) AS login, m_fp AS fp, rk
    FROM j_pulls
    WHERE m_fp IS NOT NULL AND m_chars >= getvariable('min_chars') AND m_words >= getvariable('min_words')
      AND nullif(author, '') IS NOT NULL AND created_at < getvariable('win_end')
), own_words AS (
    SELECT login FROM (
        SELECT login, own_fp AS fp FROM j_sightings
        WHERE own_fp IS NOT NULL AND NOT curated GROUP BY login, own_fp HAVING count(*) = 1
        UNION ALL
        SELECT lower(trim(author)), m_fp FROM j_pulls
        WHERE m_fp IS NOT NULL AND m_words >= getvariable('min_words') AND nullif(author, '') IS NOT NULL
          AND created_at < getvariable('win_end')
        GROUP BY lower(trim(author)), m_fp HAVING count(*) = 1
    ) GROUP BY login HAVING count(*) >= getvariable('own_words_min')
), repeated AS (
    -- A PR is one row of pulls, so rows count PRs; one login is min = max (a third of the time of
    -- counting distinct logins and PRs over every description).
    SELECT fp, min(login) AS login, count(*) AS prs
    FROM bodies GROUP BY fp
    HAVING count(*) >= getvariable('author_template_prs') AND min(login) = max(login)
), counted AS (
    SELECT r.fp, r.login, r.prs, count(DISTINCT b.rk) AS repos
    FROM repeated r JOIN bodies b ON b.fp = r.fp
    WHERE r.login NOT IN (SELECT login FROM own_words)
    GROUP BY r.fp, r.login, r.prs
)
SELECT login, arg_max(fp, (prs, fp)) AS fp, max(prs) AS prs, arg_max(repos, (prs, fp)) AS repos
FROM counted GROUP BY login;

-- SPEC §3 (a PR by a bot): where the snapshot holds PRs written by known bots (GitHub Apps: the Bot
-- type and the [bot] form, and accounts on the sourced list), their descriptions are their tools'
-- templates. A tool's fixed words are the lines of its descriptions (`pulls.m_lines`: long enough to
-- say something; links, numbers, versions, hashes and markup aside) found on tool_min_prs of its PRs, in
-- two or more owners' repositories (one owner's PR template is that owner's), and written by fewer
-- people than the tool posted them: a PR template many projects copied, which a backport bot carries
-- over from the PRs it copies, is the people's words, not the tool's.
CREATE OR REPLACE TEMP TABLE j_tool_lines AS
WITH lines AS (
    SELECT lower(trim(author)) AS login, author_type, regexp_replace(repo, '/[^/]+$', '') AS owner, unnest(m_lines) AS line
    FROM j_pulls
    WHERE len(m_lines) > 0 AND nullif(author, '') IS NOT NULL AND created_at < getvariable('win_end')
), apps AS (
    SELECT login FROM (
        SELECT login, coalesce(bool_or(author_type = 'Bot'), false) AS typed,
               regexp_replace(regexp_replace(login, '^app/', ''), '\[bot\]$', '') AS norm
        FROM lines GROUP BY login
    ) a
    WHERE (typed OR ends_with(login, '[bot]') OR starts_with(login, 'app/') OR EXISTS (SELECT 1 FROM rule_known k WHERE k.norm = a.norm))
      AND NOT EXISTS (SELECT 1 FROM rule_humans h WHERE h.norm = a.norm)
), by_tools AS (
    SELECT login AS tool, line, count(*) AS prs
    FROM lines WHERE login IN (SELECT login FROM apps)
    GROUP BY login, line
    HAVING count(*) >= getvariable('tool_min_prs') AND count(DISTINCT owner) >= 2
), by_people AS (
    SELECT line, count(DISTINCT login) AS people
    FROM lines WHERE login NOT IN (SELECT login FROM apps) AND line IN (SELECT line FROM by_tools)
    GROUP BY line
)
SELECT t.tool, t.line FROM by_tools t LEFT JOIN by_people p ON p.line = t.line
WHERE coalesce(p.people, 0) < t.prs;
