-- SPEC §3 (bot): every account the snapshot's repositories show, as (repository, login, type),
-- with what its login alone says: GitHub's Bot type or the [bot] and app/ forms (`typed`); the
-- allow-list of people (`human`); the sourced list, the login patterns and the words for
-- automation, or the project's own name with an automation word (`named`). A commit with no
-- linked account counts by its author's name. The rule data are the `rule_*` tables (`relations`).
CREATE OR REPLACE TEMP TABLE j_accounts AS
WITH seen AS (
    SELECT DISTINCT rk, actor AS login, actor_type AS type FROM j_items WHERE actor IS NOT NULL
    UNION SELECT DISTINCT rk, nullif(author, ''), author_type FROM j_pulls WHERE nullif(author, '') IS NOT NULL
    UNION SELECT DISTINCT rk, nullif(merged_by, ''), NULL FROM j_pulls WHERE nullif(merged_by, '') IS NOT NULL
    UNION SELECT DISTINCT hash(c.repo), o.login, NULL FROM community c, unnest(c.codeowners) AS o(login) WHERE nullif(o.login, '') IS NOT NULL
    UNION SELECT DISTINCT hash(repo), nullif(author_login, ''), author_type FROM commits WHERE nullif(author_login, '') IS NOT NULL
    UNION SELECT DISTINCT hash(repo), nullif(author_name, ''), NULL FROM commits WHERE author_login IS NULL AND nullif(author_name, '') IS NOT NULL
), named AS (
    SELECT s.*, lower(trim(s.login)) AS raw,
           regexp_replace(regexp_replace(lower(trim(s.login)), '^app/', ''), '\[bot\]$', '') AS norm
    FROM seen s
), keys AS (
    SELECT DISTINCT rk, key FROM (
        SELECT rk, regexp_replace(unnest(string_split(lower(repo), '/')), '[-_.]', '', 'g') AS key FROM j_repo_keys
    ) WHERE length(key) >= 3
), logins AS (
    SELECT DISTINCT norm FROM named
), by_login AS (
    SELECT l.norm,
           EXISTS (SELECT 1 FROM rule_humans h WHERE h.norm = l.norm) AS human,
           EXISTS (SELECT 1 FROM rule_known k WHERE k.norm = l.norm)
           OR EXISTS (SELECT 1 FROM rule_globs g WHERE l.norm GLOB g.glob)
           OR regexp_matches(l.norm, getvariable('bot_words')) AS listed
    FROM logins l
), project AS (
    SELECT DISTINCT n.rk, n.norm
    FROM named n
    JOIN keys k ON k.rk = n.rk AND starts_with(regexp_replace(n.norm, '[-_.]', '', 'g'), k.key)
    JOIN rule_suffixes x ON true
    WHERE length(regexp_replace(n.norm, '[-_.]', '', 'g')) > length(k.key)
      AND length(regexp_replace(n.norm, '[-_.]', '', 'g')) - length(k.key) <= 16
      AND ends_with(rtrim(substr(regexp_replace(n.norm, '[-_.]', '', 'g'), length(k.key) + 1), '0123456789'), x.suffix)
)
SELECT n.rk, n.login, n.type, n.norm,
       coalesce(n.type = 'Bot', false) OR ends_with(n.raw, '[bot]') OR starts_with(n.raw, 'app/') AS typed,
       b.human,
       b.listed OR p.norm IS NOT NULL AS named
FROM named n
JOIN by_login b ON b.norm = n.norm
LEFT JOIN project p ON p.rk = n.rk AND p.norm = n.norm;
