-- SPEC §3 (first-timer): when each author first had a PR merged or a commit on the default
-- branch, as far as the collected history shows.
CREATE OR REPLACE TEMP TABLE j_first AS
SELECT rk, login, min(ts) AS ts FROM (
    SELECT rk, lower(author) AS login, merged_at AS ts FROM j_pulls WHERE nullif(author, '') IS NOT NULL AND merged_at IS NOT NULL
    UNION ALL
    SELECT repo_key(repo), lower(author_login), committed_at FROM commits WHERE nullif(author_login, '') IS NOT NULL AND committed_at IS NOT NULL
) GROUP BY rk, login;
