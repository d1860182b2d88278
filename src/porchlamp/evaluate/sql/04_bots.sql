-- SPEC §5 (an account that acts as a bot in one repository): a project's own CI, merge or release
-- bot often runs under a member's user account, in that repository only, posting when its job ends.
-- Its mark is that one text makes up nearly all it says there: an account nearly all of whose
-- comments and reviews in a repository (a behaviour_share) are texts it posts on own_min_prs or more
-- of that repository's PRs, on at least own_min_prs PRs, acts as that repository's bot. A text needs
-- min_words to count (not min_chars: a short CI line repeated by one account is still its own). What
-- is set aside anyway is not weighed: known templates (a deploy preview an integration posts under
-- a maintainer's login), redirects (SPEC §6: a maintainer who pastes where review happens on every
-- PR answers each of them) and what an account says on its own PRs (an author's pings). Only PRs
-- opened in the window count, as only they are collected. So an account that also writes in its own
-- words stays a person, and its canned reply is its answer.
CREATE OR REPLACE TEMP TABLE j_own_said AS
SELECT s.rk, s.login, s.number, s.node_id, s.ts, s.own_fp
FROM j_sightings s LEFT JOIN j_found f ON f.fp = s.fp
WHERE s.in_window AND NOT s.by_author AND NOT s.redirect AND NOT s.curated AND f.fp IS NULL;

CREATE OR REPLACE TEMP TABLE j_own_bots AS
WITH texts AS (
    SELECT rk, login, own_fp, count(DISTINCT number) AS prs, arg_min(node_id, (ts, node_id)) AS node
    FROM j_own_said WHERE own_fp IS NOT NULL GROUP BY rk, login, own_fp
), said AS (
    SELECT s.rk, s.login, s.number, coalesce(t.prs >= getvariable('own_min_prs'), false) AS templated
    FROM j_own_said s LEFT JOIN texts t ON t.rk = s.rk AND t.login = s.login AND t.own_fp = s.own_fp
)
SELECT k.repo, a.rk, a.login, a.prs, a.of_prs, t.node
FROM (
    SELECT rk, login, count(DISTINCT number) FILTER (WHERE templated) AS prs, count(DISTINCT number) AS of_prs
    FROM said GROUP BY rk, login
    HAVING count(*) FILTER (WHERE templated) >= getvariable('behaviour_share') * count(*)
       AND count(DISTINCT number) FILTER (WHERE templated) >= getvariable('own_min_prs')
) a
JOIN (SELECT rk, login, arg_max(node, (prs, node)) AS node FROM texts GROUP BY rk, login) t
  ON t.rk = a.rk AND t.login = a.login
JOIN j_repo_keys k ON k.rk = a.rk;

-- SPEC §3 (bot): the verdict on each account of a repository: its type or form, else the
-- allow-list of people first, then the list, behaviour (across repositories, or in this one), patterns
-- and the project's name; with why, as a PR's evidence says it.
CREATE OR REPLACE TEMP TABLE j_bots AS
SELECT a.rk, a.login, a.type, a.norm,
       a.typed OR (NOT a.human AND (a.named OR b.login IS NOT NULL OR o.login IS NOT NULL)) AS bot,
       CASE WHEN a.typed THEN 'its account is a bot account (of type Bot, or a [bot] login)'
            WHEN a.human THEN NULL
            WHEN a.named THEN 'its login is on the known-bots list, or made like a bot''s'
            WHEN b.login IS NOT NULL THEN b.why
            WHEN o.login IS NOT NULL THEN 'acts as this repository''s bot: one text makes up what it says on ' || o.prs || ' PRs'
       END AS why
FROM j_accounts a
LEFT JOIN j_behaviour b ON b.login = a.norm
LEFT JOIN j_own_bots o ON o.rk = a.rk AND o.login = a.norm;
