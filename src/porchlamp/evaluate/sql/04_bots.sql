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

-- SPEC §5 (a project's own bot, known by its skeleton): a report whose tables and lists are filled in per
-- PR (reviews, conflicts, coverage) is never the same text twice, but shares most of its lines and
-- headings with the same account's other reports. An account whose such texts open the conversation
-- within minutes (automated_minutes) on nearly every PR of the repository's window (automated_share, and
-- min_prs at least) acts as that repository's bot, whatever its login and association. A text's lines
-- are compared with numbers and hashes set aside; a line is the account's skeleton when it is in half of
-- its openings (and own_min_prs at least), a text is a skeleton when half its lines are, and the
-- reports are filled in per PR when at least half of them differ from each other. A person's
-- canned reply is not fast on nearly every PR, so it stays a person answering. Known bot text (a deploy
-- preview an integration posts under a maintainer's login) and redirects are set aside anyway and not
-- weighed; a report that came out the same on many PRs (nothing to fill in) is still the report. Only
-- the openings are split into lines: one comment a PR at most.
CREATE OR REPLACE TEMP TABLE j_skeleton_bots AS
WITH openers AS (
    SELECT rk, number, login, node_id, own_fp FROM (
        SELECT s.rk, s.number, s.login, s.node_id, s.fast, s.own_fp,
               row_number() OVER (PARTITION BY s.rk, s.number ORDER BY s.ts, s.node_id) AS k
        FROM j_sightings s
        WHERE s.in_window AND NOT s.by_author AND NOT s.redirect AND NOT s.curated
    ) WHERE k = 1 AND fast
), lines AS (
    SELECT o.rk, o.login, o.number, l.line
    FROM openers o JOIN timeline t ON t.node_id = o.node_id,
         unnest(list_distinct(list_filter(list_transform(string_split(t.body, chr(10)),
             lambda x: regexp_replace(regexp_replace(lower(trim(x)), '\b[0-9a-f]{7,40}\b', '#', 'g'), '[0-9]+', '0', 'g')),
             lambda x: length(x) >= 3))) AS l(line)
), openings AS (
    SELECT rk, login, count(*) AS n FROM openers GROUP BY rk, login
), shared AS (
    SELECT l.rk, l.login, l.line
    FROM lines l JOIN openings o ON o.rk = l.rk AND o.login = l.login
    GROUP BY l.rk, l.login, l.line, o.n
    HAVING count(*) >= greatest(getvariable('own_min_prs'), 0.5 * o.n)
), shaped AS (
    SELECT l.rk, l.login, l.number
    FROM lines l LEFT JOIN shared s ON s.rk = l.rk AND s.login = l.login AND s.line = l.line
    GROUP BY l.rk, l.login, l.number
    HAVING count(s.line) >= 0.5 * count(*)
), window_prs AS (
    SELECT rk, count(*) AS n FROM j_pulls
    WHERE created_at >= getvariable('win_start') AND created_at < getvariable('win_end') GROUP BY rk
)
SELECT s.rk, s.login, count(*) AS prs, w.n AS of_prs
FROM shaped s JOIN window_prs w ON w.rk = s.rk
JOIN openers o ON o.rk = s.rk AND o.number = s.number
GROUP BY s.rk, s.login, w.n
HAVING count(*) >= getvariable('min_prs') AND count(*) >= getvariable('automated_share') * w.n
   -- filled in per PR: at least half are texts of their own (one text on every PR is a template, set aside alone)
   AND count(DISTINCT o.own_fp) >= 0.5 * count(*);

-- SPEC §3 (bot): the verdict on each account of a repository: its type or form, else the
-- allow-list of people first, then the list, behaviour (across repositories, or in this one), patterns
-- and the project's name; with why, as a PR's evidence says it.
CREATE OR REPLACE TEMP TABLE j_bots AS
SELECT a.rk, a.login, a.type, a.norm,
       a.typed OR k.login IS NOT NULL OR (NOT a.human AND (a.named OR b.login IS NOT NULL OR o.login IS NOT NULL)) AS bot,
       CASE WHEN a.typed THEN CASE a.typed_by WHEN 'type' THEN 'its account is of type Bot'
                                   WHEN 'bot_login' THEN 'its login ends in [bot], as an app''s does'
                                   ELSE 'its login is an app''s (app/)' END
            WHEN k.login IS NOT NULL THEN 'acts as this repository''s bot: its report, filled in per PR, opens the conversation '
                                          || 'within minutes on ' || k.prs || ' of the ' || k.of_prs || ' PRs'
            WHEN a.human THEN NULL
            WHEN a.named THEN CASE a.named_by WHEN 'known' THEN 'its login is on the known-bots list'
                                   WHEN 'pattern' THEN 'its login is made like a bot''s (a bot''s pattern or word)'
                                   ELSE 'its login is the project''s name with an automation word' END
            WHEN b.login IS NOT NULL THEN b.why
            WHEN o.login IS NOT NULL THEN 'acts as this repository''s bot: one text makes up what it says on ' || o.prs || ' PRs'
       END AS why
FROM j_accounts a
LEFT JOIN j_behaviour b ON b.login = a.norm
LEFT JOIN j_own_bots o ON o.rk = a.rk AND o.login = a.norm
LEFT JOIN j_skeleton_bots k ON k.rk = a.rk AND k.login = a.norm;

-- SPEC §3 (a PR by a bot): a window's PR whose description follows a tool's template learned from
-- the PRs known bots open (`j_tool_lines`) is that tool's, whatever account opened it: three or more
-- of its lines are that tool's fixed words, or half of its lines that can be. Of two tools, the one
-- with more lines in it names it.
CREATE OR REPLACE TEMP TABLE j_tool_prs AS
WITH lines AS (
    SELECT rk, number, len(m_lines) AS lines, unnest(m_lines) AS line
    FROM j_pulls
    WHERE len(m_lines) > 0 AND created_at >= getvariable('win_start') AND created_at < getvariable('win_end')
), matched AS (
    SELECT l.rk, l.number, t.tool, count(*) AS n, any_value(l.lines) AS lines
    FROM lines l JOIN j_tool_lines t ON t.line = l.line
    GROUP BY l.rk, l.number, t.tool
    HAVING count(*) >= 3 OR count(*) >= 0.5 * any_value(l.lines)
)
SELECT rk, number, arg_max(tool, (n, tool)) AS tool FROM matched GROUP BY rk, number;
