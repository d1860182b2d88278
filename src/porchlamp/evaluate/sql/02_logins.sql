-- SPEC §3 (bot): every account the snapshot's repositories show, as (repository, login, type),
-- with what its login alone says: GitHub's Bot type or the [bot] and app/ forms (`typed`); the
-- allow-list of people (`human`); the sourced list, the login patterns and the words for
-- automation, or the project's own name with an automation word (`named`). A commit with no
-- linked account counts by its author's name. The rule data are the `rule_*` tables and
-- variables (`relations.rule_tables`).
CREATE OR REPLACE TEMP TABLE j_accounts AS
WITH seen AS (
    SELECT DISTINCT rk, actor AS login, actor_type AS type FROM j_items WHERE actor IS NOT NULL
    UNION SELECT DISTINCT rk, nullif(author, ''), author_type FROM j_pulls WHERE nullif(author, '') IS NOT NULL
    UNION SELECT DISTINCT rk, nullif(merged_by, ''), NULL FROM j_pulls WHERE nullif(merged_by, '') IS NOT NULL
    UNION SELECT DISTINCT repo_key(c.repo), o.login, NULL FROM community c, unnest(c.codeowners) AS o(login) WHERE nullif(o.login, '') IS NOT NULL
    UNION SELECT DISTINCT repo_key(repo), nullif(author_login, ''), author_type FROM commits WHERE nullif(author_login, '') IS NOT NULL
    UNION SELECT DISTINCT repo_key(repo), nullif(author_name, ''), NULL FROM commits WHERE author_login IS NULL AND nullif(author_name, '') IS NOT NULL
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
           EXISTS (SELECT 1 FROM rule_known k WHERE k.norm = l.norm) AS known,
           EXISTS (SELECT 1 FROM rule_known k WHERE k.norm = l.norm)
           OR regexp_matches(l.norm, getvariable('bot_globs'))
           OR regexp_matches(l.norm, getvariable('bot_words')) AS listed
    FROM logins l
), squashed AS (
    SELECT DISTINCT rk, norm, regexp_replace(norm, '[-_.]', '', 'g') AS sq FROM named
), project AS (
    SELECT DISTINCT s.rk, s.norm
    FROM squashed s
    JOIN keys k ON k.rk = s.rk AND starts_with(s.sq, k.key)
    WHERE length(s.sq) > length(k.key) AND length(s.sq) - length(k.key) <= 16
      AND regexp_matches(rtrim(substr(s.sq, length(k.key) + 1), '0123456789'), getvariable('project_suffixes'))
)
SELECT n.rk, n.login, n.type, n.norm,
       coalesce(n.type = 'Bot', false) OR ends_with(n.raw, '[bot]') OR starts_with(n.raw, 'app/') AS typed,
       b.human,
       b.listed OR p.norm IS NOT NULL AS named,
       -- which of those held, for the reason a page gives (one, never "this or that")
       CASE WHEN coalesce(n.type = 'Bot', false) THEN 'type' WHEN ends_with(n.raw, '[bot]') THEN 'bot_login'
            WHEN starts_with(n.raw, 'app/') THEN 'app_login' END AS typed_by,
       CASE WHEN b.known THEN 'known' WHEN b.listed THEN 'pattern' WHEN p.norm IS NOT NULL THEN 'project' END AS named_by
FROM named n
JOIN by_login b ON b.norm = n.norm
LEFT JOIN project p ON p.rk = n.rk AND p.norm = n.norm;
