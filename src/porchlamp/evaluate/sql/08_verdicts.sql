-- SPEC §4 and §5: each PR opened before the snapshot, outside or excluded with the first reason
-- that applies, when its clock starts, its first response (the earliest comment or review by a
-- responder, or merge; of equally early ones the first listed), and its one outcome. What is
-- taken from the first of some items is the least of structs that begin with the item's place
-- (time, then node id, which no two items share), then what is taken: one min, not one arg_min
-- per field (half the time), nor one arg_min of a struct by its place (a seventh more).
CREATE OR REPLACE TEMP TABLE j_verdicts AS
WITH items AS NOT MATERIALIZED (
    -- Each item's place in its PR's order (time, then node id), made as it is read: stored, it
    -- doubled the bytes of the four million judged items.
    SELECT *, (ts, node_id) AS place FROM j_judged_items
), per_pr AS (
    SELECT rk, number,
           min((ts, node_id, kind)) FILTER (WHERE kind IN ('converted_to_draft', 'ready_for_review')) AS clock_item,
           bool_or(kind = 'ready_for_review') AS has_ready,
           min(place) FILTER (WHERE kind = 'merged') AS merged_place,
           min(ts) FILTER (WHERE kind = 'merged') AS merged_item_at,
           -- SPEC §4: a close the author undid by reopening is not a withdrawal. Closes and reopens
           -- alternate, so the one close that may stand is the last, when no reopen came after it.
           max(place) FILTER (WHERE kind = 'closed' AND by_author) AS last_author_close,
           max(place) FILTER (WHERE kind = 'reopened') AS last_reopen,
           min(ts) FILTER (WHERE kind = 'closed' AND NOT by_author) AS other_close,
           min(ts) FILTER (WHERE kind = 'closed' AND NOT by_author AND actor IS NOT NULL AND NOT bot) AS human_close,
           min((ts, node_id, CASE WHEN kind = 'merged' THEN 'merge' ELSE kind END, actor))
               FILTER (WHERE kind = 'merged' OR responds) AS answer
    FROM items GROUP BY rk, number
), reviews AS (
    SELECT r.rk, r.number, count(*) AS n
    FROM items r LEFT JOIN per_pr x ON x.rk = r.rk AND x.number = r.number
    WHERE r.kind = 'review' AND NOT r.bot AND (x.merged_place IS NULL OR r.place < x.merged_place)
      AND NOT (r.by_author OR (r.actor IS NULL AND nullif((SELECT author FROM j_pulls p WHERE p.rk = r.rk AND p.number = r.number), '') IS NULL))
    GROUP BY r.rk, r.number
), first_mark AS (
    -- Whether a PR was opened as a draft is in its whole timeline, not only what came before the
    -- snapshot: a draft marked ready after it was still a draft at it, and a PR converted to a draft
    -- after it was ready at it, whatever the PR shows now (`is_draft`, read when collected).
    SELECT repo_key(repo) AS rk, number, min((created_at, node_id, kind))[3] AS kind
    FROM timeline WHERE kind IN ('converted_to_draft', 'ready_for_review') GROUP BY ALL
), base AS (
    SELECT p.repo, p.rk, p.number, p.title, p.author, p.author_association, p.created_at, p.has_ci, p.is_draft,
           p.author_type, p.merged_at AS pr_merged_at, p.merged_by,
           coalesce(fm.kind = 'ready_for_review', p.is_draft) AS opened_as_draft,
           CASE WHEN x.clock_item[3] = 'ready_for_review' THEN x.clock_item[1] ELSE p.created_at END AS clock,
           coalesce(x.has_ready, false) AS has_ready,
           x.merged_item_at, x.other_close, x.human_close,
           CASE WHEN x.last_reopen IS NULL OR x.last_author_close > x.last_reopen THEN x.last_author_close[1] END AS author_close,
           coalesce(r.n, 0) AS reviews,
           -- The PR's mergedBy stands in for a merge event no page with it was read for.
           CASE WHEN x.merged_item_at IS NULL AND p.merged_at < getvariable('win_end')
                     AND (x.answer[1] IS NULL OR p.merged_at < x.answer[1]) THEN 'merge' ELSE x.answer[3] END AS response_kind,
           CASE WHEN x.merged_item_at IS NULL AND p.merged_at < getvariable('win_end')
                     AND (x.answer[1] IS NULL OR p.merged_at < x.answer[1]) THEN p.merged_by ELSE x.answer[4] END AS response_actor,
           CASE WHEN x.merged_item_at IS NULL AND p.merged_at < getvariable('win_end')
                     AND (x.answer[1] IS NULL OR p.merged_at < x.answer[1]) THEN p.merged_at ELSE x.answer[1] END AS response_at,
           coalesce(x.merged_item_at, CASE WHEN p.merged_at < getvariable('win_end') THEN p.merged_at END) AS merged_at,
           ab.bot AS author_bot, CASE WHEN ab.bot THEN ab.why END AS author_bot_why,
           p.m_bot_tool AS bot_tool, tp.tool AS learned_tool, ra.prs AS repeat_prs, ra.repos AS repeat_repos,
           am.login IS NOT NULL AS author_maintainer, ac.created_at AS account_created,
           fc.ts AS first_contribution, p.m_ai AS ai
    FROM j_pulls p
    LEFT JOIN per_pr x ON x.rk = p.rk AND x.number = p.number
    LEFT JOIN reviews r ON r.rk = p.rk AND r.number = p.number
    LEFT JOIN first_mark fm ON fm.rk = p.rk AND fm.number = p.number
    LEFT JOIN j_bots ab ON ab.rk = p.rk AND ab.login = p.author AND ab.type IS NOT DISTINCT FROM p.author_type
    LEFT JOIN j_maintainers am ON am.rk = p.rk AND am.login = lower(p.author)
    LEFT JOIN accounts ac ON ac.login = p.author AND ac.host = repo_host(p.repo)
    LEFT JOIN j_first fc ON fc.rk = p.rk AND fc.login = lower(p.author)
    LEFT JOIN j_repeat_authors ra ON ra.login = lower(trim(p.author))
    LEFT JOIN j_tool_prs tp ON tp.rk = p.rk AND tp.number = p.number
    WHERE p.created_at < getvariable('win_end')
), excluded AS (
    SELECT b.*, b.clock + to_days(getvariable('response_days')) AS deadline,
           CASE
               WHEN NOT (b.created_at >= getvariable('win_start') AND b.created_at < getvariable('win_end')) THEN 'before_window'
               WHEN nullif(b.author, '') IS NULL THEN 'deleted_author'
               WHEN b.author_type = 'Mannequin' OR b.author_association = 'MANNEQUIN' THEN 'mannequin'
               -- SPEC §3: by its account, or by what it writes (a tool's PR template, one description again and again)
               WHEN coalesce(b.author_bot, b.author_type = 'Bot', false) OR b.bot_tool IS NOT NULL OR b.learned_tool IS NOT NULL
                    OR b.repeat_prs IS NOT NULL THEN 'bot'
               WHEN b.author_maintainer THEN 'maintainer'
               WHEN b.account_created IS NOT NULL
                    AND b.created_at - b.account_created < to_days(getvariable('brand_new_days')) THEN 'brand_new_account'
               WHEN b.opened_as_draft AND NOT b.has_ready THEN 'draft'
               WHEN b.clock + to_days(getvariable('response_days')) > getvariable('win_end') THEN 'too_young'
               WHEN b.author_close IS NOT NULL AND b.author_close <= b.clock + to_days(getvariable('response_days'))
                    AND (b.response_at IS NULL OR b.response_at > b.author_close) THEN 'self_closed'
           END AS excluded
    FROM base b
), watched AS (
    -- SPEC §6: a repository where a maintainer acts on an outside PR in the window; where none does
    -- (a mirror nobody from the project watches), a bystander's redirect counts too.
    SELECT DISTINCT i.rk
    FROM items i JOIN excluded e ON e.rk = i.rk AND e.number = i.number
    WHERE e.excluded IS NULL AND i.maintainer AND NOT i.bot AND NOT i.by_author AND i.ts >= getvariable('win_start')
), pointed AS (
    SELECT i.rk, i.number, arg_min(i.node_id, i.place) AS node_id, min(i.place) AS place,
           arg_min(coalesce(i.bridge, i.redirect), i.place) AS kind, arg_min(i.actor, i.place) AS actor,
           arg_min(i.bot, i.place) AS bot, arg_min(i.maintainer, i.place) AS by_maintainer,
           arg_min(i.contributor, i.place) AS contributor
    FROM items i LEFT JOIN watched w ON w.rk = i.rk
    WHERE i.ts >= getvariable('win_start') AND i.actor IS NOT NULL AND NOT i.by_author
      AND (i.bridge IS NOT NULL OR (i.has_body AND i.redirect IS NOT NULL
           AND (i.bot OR i.maintainer OR i.contributor OR w.rk IS NULL)))
    GROUP BY i.rk, i.number
), withdrawn AS (
    -- A maintainer's later "PRs here are fine" on the same PR takes the redirect back.
    SELECT d.rk, d.number
    FROM pointed d JOIN items i ON i.rk = d.rk AND i.number = d.number
    WHERE i.welcome AND i.maintainer AND NOT i.bot AND NOT i.by_author AND i.place > d.place
    GROUP BY d.rk, d.number
), redirects AS (
    SELECT d.rk, d.number, d.node_id, d.kind, d.actor,
           CASE WHEN d.bot THEN 'bot' WHEN d.by_maintainer THEN 'maintainer'
                WHEN d.contributor THEN 'contributor' ELSE 'bystander' END AS by
    FROM pointed d
    WHERE NOT EXISTS (SELECT 1 FROM withdrawn x WHERE x.rk = d.rk AND x.number = d.number)
)
SELECT e.repo, e.rk, e.number, title, author, author_association, created_at, clock AS clock_start, excluded, pr_merged_at,
       CASE WHEN excluded IS NOT NULL THEN NULL
            WHEN response_at IS NOT NULL AND response_at <= deadline THEN 'answered'
            WHEN human_close IS NOT NULL AND human_close <= deadline AND (response_at IS NULL OR response_at > human_close)
                 THEN 'closed_silently'
            ELSE 'unanswered' END AS outcome,
       response_kind, response_actor, response_at,
       CASE WHEN response_at IS NOT NULL THEN greatest(0.0, epoch(response_at - clock) / 3600.0) END AS hours_to_response,
       coalesce(merged_at <= clock + to_days(getvariable('decided_days')), false)
           OR coalesce(other_close <= clock + to_days(getvariable('decided_days')), false) AS decided,
       merged_at IS NOT NULL AS merged,
       reviews > 0 AS reviewed_by_other, reviews::INTEGER AS reviews, has_ci,
       CASE WHEN excluded IS NULL THEN nullif(author, '') IS NOT NULL AND (first_contribution IS NULL OR first_contribution >= created_at) END
           AS first_timer,
       coalesce(ai, false) AS ai_assisted,
       CASE WHEN excluded IS NULL THEN d.node_id END AS redirect_node,
       CASE WHEN excluded IS NULL THEN d.kind END AS redirect_kind,
       CASE WHEN excluded IS NULL THEN d.actor END AS redirect_actor,
       CASE WHEN excluded IS NULL THEN d.by END AS redirect_by,
       CASE WHEN excluded = 'bot' THEN coalesce(
           author_bot_why, CASE WHEN author_type = 'Bot' THEN 'its account is of type Bot' END,
           CASE WHEN bot_tool = 'an automation tool' THEN 'its description says a tool opened it'
                WHEN bot_tool IS NOT NULL THEN 'its title or description is ' || bot_tool || '''s PR template' END,
           'its description follows the template of the PRs ' || learned_tool || ' opens',
           'it opened ' || repeat_prs || ' PRs with one description'
               || CASE WHEN repeat_repos > 1 THEN ', in ' || repeat_repos || ' repositories' ELSE '' END)
       END AS bot_reason
FROM excluded e LEFT JOIN redirects d ON d.rk = e.rk AND d.number = e.number;
