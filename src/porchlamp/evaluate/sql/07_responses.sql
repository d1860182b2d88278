-- SPEC §5 (responder rule): each comment or review that is the project answering its PR
-- (`responds`): by a person other than the PR's author who is a maintainer or a past contributor
-- (association CONTRIBUTOR; on a forge that reports no association, SPEC §13, a merged PR or commit of
-- theirs before the item, from collected history), in words of their own. Templated text is not an answer, except a
-- maintainer's redirect to where review happens, pasted by hand. Also, per item, what the PR's
-- verdict needs: is its actor a bot, a maintainer; is the item a redirect (SPEC §6) and by whom.
-- A column, not a view of its own: the verdicts find a PR's first response in the pass that
-- finds its other firsts (a second pass over the responses cost half a second).
-- Only the items a verdict reads are kept (`08_verdicts.sql`): responses, the events that start the
-- clock, merge, close or reopen, reviews, whatever a maintainer did on someone else's PR, and redirects and
-- their withdrawals. Labels, requests and comments that answer nothing (a third of the items) were
-- stored only to be skipped, and pushed the verdicts past the memory budget.
CREATE OR REPLACE TEMP TABLE j_judged_items AS
WITH judged AS (
    SELECT * EXCLUDE (template),
           coalesce(kind IN ('comment', 'review') AND actor IS NOT NULL AND NOT by_author AND NOT bot
                    AND (maintainer OR contributor)
                    AND (NOT has_body OR template IS NULL OR (template <> 'automated' AND maintainer AND redirect IS NOT NULL)),
                    false) AS responds
    FROM (
        SELECT i.rk, i.number, i.kind, i.ts, i.actor, i.node_id,
               coalesce(i.actor_low = lower(nullif(p.author, '')), false) AS by_author,
               CASE WHEN i.actor IS NULL THEN coalesce(i.actor_type = 'Bot', false) ELSE b.bot END AS bot,
               m.login IS NOT NULL AS maintainer,
               CASE WHEN coalesce(i.curated, false) THEN 'curated' ELSE f.how END AS template,
               i.redirect, i.welcome, i.has_body,
               coalesce(i.assoc = 'CONTRIBUTOR', fc.ts < i.ts, false) AS contributor,
               g.kind AS bridge
        FROM j_items i
        JOIN j_pulls p ON p.rk = i.rk AND p.number = i.number
        LEFT JOIN j_bots b ON b.rk = i.rk AND b.login = i.actor AND b.type IS NOT DISTINCT FROM i.actor_type
        LEFT JOIN j_maintainers m ON m.rk = i.rk AND m.login = i.actor_low
        LEFT JOIN j_found f ON f.fp = i.fp AND i.chars >= getvariable('min_chars') AND i.words >= getvariable('min_words')
        LEFT JOIN rule_bridges g ON g.norm = b.norm
        LEFT JOIN j_first fc ON i.assoc IS NULL AND fc.rk = i.rk AND fc.login = i.actor_low
    )
)
SELECT * FROM judged
WHERE responds OR kind IN ('converted_to_draft', 'ready_for_review', 'merged', 'closed', 'reopened', 'review')
   OR (maintainer AND NOT bot AND NOT by_author) OR bridge IS NOT NULL OR redirect IS NOT NULL OR welcome;
