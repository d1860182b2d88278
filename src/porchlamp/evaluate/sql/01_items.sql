-- SPEC §2 (the snapshot): only what happened before the snapshot instant counts. The PRs opened
-- before it, and each one's timeline items before it in the order the store lists them
-- (time, then node id), numbered: "the first" of equally early items is the first listed.
-- A view, not a table: each relation reads only the columns and rows it needs from the timeline
-- (a copy of every item cost 1.8 s at 11,000 repositories and saved nothing).
-- Relations join and group by `rk`, a number for the repository (`repo_key`, made in
-- `relations._prepare`; `j_repo_keys`), not by its name: hashing and comparing names of about
-- thirty bytes was a fifth of their time.
CREATE OR REPLACE TEMP VIEW j_items AS
SELECT t.repo, repo_key(t.repo) AS rk, t.number, t.node_id, t.kind, t.created_at AS ts, nullif(t.actor, '') AS actor, t.actor_type,
       t.actor_association AS assoc, lower(nullif(t.actor, '')) AS actor_low,
       (t.created_at, t.node_id) AS place,
       t.m_fp AS fp, t.m_chars AS chars, t.m_words AS words, t.m_curated AS curated, t.m_redirect AS redirect,
       coalesce(t.m_welcome, false) AS welcome,
       t.m_fp IS NOT NULL AS has_body
FROM timeline t
WHERE t.created_at < getvariable('win_end');

CREATE OR REPLACE TEMP VIEW j_pulls AS
SELECT repo_key(p.repo) AS rk, p.* FROM pulls p;

-- Each repository's number, from every table that names one (`relations.judge` checks that no two
-- names share one).
CREATE OR REPLACE TEMP TABLE j_repo_keys AS
SELECT repo_key(repo) AS rk, repo FROM (
    SELECT name_with_owner AS repo FROM repositories UNION SELECT repo FROM pulls
    UNION SELECT repo FROM commits UNION SELECT repo FROM community
);
