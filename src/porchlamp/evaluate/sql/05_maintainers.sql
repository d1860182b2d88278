-- SPEC §3 (maintainer): association OWNER, MEMBER or COLLABORATOR on anything in the window, a
-- write-level act on someone else's PR in the window, the merger, or CODEOWNERS; never a bot. On a
-- forge that reports members instead of associations (SPEC §13, GitLab and Forgejo), membership with
-- access level Developer (30) or above stands for the association, read on the same PRs and items.
-- Each act keeps its place (PR number, then the author, the merger, the items in order), so a
-- maintainer's reason is the first act found; of an account's acts on items, only the first of
-- each reason is kept (at 11,000 repositories, 2.3 million acts become about 100,000 rows).
CREATE OR REPLACE TEMP TABLE j_members AS
SELECT repo_key(repo) AS rk, lower(login) AS login,
       CASE WHEN access_level >= 50 THEN 'member with the Owner role' WHEN access_level >= 40 THEN 'member with the Maintainer role'
            -- Forgejo's (collect/forgejo/mapping.py): write access, or a public member of the owning organisation
            WHEN access_level = 35 THEN 'has write access (Forgejo lets them be assigned)'
            WHEN access_level = 32 THEN 'public member of the organisation that owns it'
            ELSE 'member with the Developer role' END AS why
FROM members WHERE access_level >= 30;

CREATE OR REPLACE TEMP TABLE j_acts AS
WITH win AS (SELECT getvariable('win_start') AS s, getvariable('win_end') AS e)
SELECT p.rk, p.author AS login, p.author_type AS type,
       CASE WHEN p.author_association IN ('OWNER', 'MEMBER', 'COLLABORATOR') THEN 'association ' || p.author_association ELSE mb.why END AS why,
       p.number, 0 AS step, NULL AS place
FROM j_pulls p LEFT JOIN j_members mb ON mb.rk = p.rk AND mb.login = lower(p.author), win
WHERE p.created_at >= win.s AND p.created_at < win.e AND (p.author_association IN ('OWNER', 'MEMBER', 'COLLABORATOR') OR mb.rk IS NOT NULL)
  AND nullif(p.author, '') IS NOT NULL
UNION ALL
SELECT p.rk, p.merged_by, NULL, 'merged a PR', p.number, 1, NULL
FROM j_pulls p, win
WHERE nullif(p.merged_by, '') IS NOT NULL AND p.merged_at >= win.s AND p.merged_at < win.e
  AND lower(p.merged_by) <> lower(coalesce(p.author, ''))
  AND NOT EXISTS (SELECT 1 FROM timeline t WHERE t.repo = p.repo AND t.number = p.number AND t.kind = 'merged')
UNION ALL
SELECT i.rk, i.actor, i.actor_type,
       CASE WHEN i.assoc IN ('OWNER', 'MEMBER', 'COLLABORATOR') THEN 'association ' || i.assoc ELSE coalesce(mb.why, w.why) END AS why,
       min(i.number), 2, arg_min(i.place, (i.number, i.place))
FROM j_items i
JOIN j_pulls p ON p.rk = i.rk AND p.number = i.number
LEFT JOIN rule_write_actions w ON w.kind = i.kind
LEFT JOIN j_members mb ON mb.rk = i.rk AND mb.login = i.actor_low, win
WHERE i.ts >= win.s AND i.actor IS NOT NULL
  AND (i.assoc IN ('OWNER', 'MEMBER', 'COLLABORATOR') OR mb.rk IS NOT NULL
       OR (w.kind IS NOT NULL AND i.actor_low <> lower(coalesce(p.author, ''))))
GROUP BY ALL
UNION ALL
SELECT repo_key(c.repo), o.login, NULL, 'named in CODEOWNERS', 2147483647, 0, NULL
FROM community c, unnest(c.codeowners) AS o(login)
WHERE nullif(o.login, '') IS NOT NULL;

CREATE OR REPLACE TEMP TABLE j_maintainers AS
SELECT k.repo, m.* FROM (
    SELECT a.rk, lower(a.login) AS login, arg_min(a.why, (a.number, a.step, coalesce(a.place, (TIMESTAMP '0001-01-01', '')))) AS why
    FROM j_acts a JOIN j_bots b ON b.rk = a.rk AND b.login = a.login AND b.type IS NOT DISTINCT FROM a.type
    WHERE NOT b.bot
    GROUP BY a.rk, lower(a.login)
) m JOIN j_repo_keys k ON k.rk = m.rk;
