-- SPEC §6 (black hole) and §7 (components): what a repository's gates and components count of
-- its PR verdicts, one row per repository, so that what runs once per repository reads a row,
-- not its PRs. Quantiles interpolate between order statistics, a PR not answered in time counting
-- as never (stats.quantile_or_never): a quantile that touches a never is none. Also each PR's
-- verdict as stored (`j_prs`: with where it was pointed, `j_redirects`), and the outside ones.
CREATE OR REPLACE TEMP VIEW j_prs AS
SELECT v.* EXCLUDE (rk, redirect_node, redirect_kind, redirect_actor, redirect_by, pr_merged_at), r.redirect
FROM j_verdicts v LEFT JOIN j_redirects r ON r.rk = v.rk AND r.number = v.number;

CREATE OR REPLACE TEMP TABLE j_outside AS
SELECT repo, number, outcome, redirect FROM j_prs WHERE excluded IS NULL;

CREATE OR REPLACE TEMP TABLE j_sampled_ci AS
SELECT rk, number FROM (
    SELECT rk, number, row_number() OVER (PARTITION BY rk ORDER BY pr_merged_at DESC, number DESC) AS place
    FROM j_verdicts
    WHERE merged AND excluded IS DISTINCT FROM 'before_window' AND pr_merged_at IS NOT NULL
) WHERE place <= getvariable('ci_sample');

CREATE OR REPLACE TEMP TABLE j_first_timers AS
WITH firsts AS (
    SELECT rk, lower(author) AS login, arg_min(number, (clock_start, number)) AS number,
           arg_min(merged, (clock_start, number)) AS merged, min((clock_start, number)) AS place
    FROM j_verdicts WHERE excluded IS NULL AND first_timer AND nullif(author, '') IS NOT NULL
    GROUP BY rk, lower(author)
)
SELECT f.rk, f.login, f.merged,
       EXISTS (SELECT 1 FROM j_verdicts v WHERE v.rk = f.rk AND lower(v.author) = f.login
               AND (v.clock_start, v.number) > f.place) AS came_back
FROM firsts f;

CREATE OR REPLACE TEMP TABLE j_figures AS
WITH outside AS (
    SELECT rk, count(*) AS n, count_if(outcome = 'answered') AS answered, count_if(outcome = 'closed_silently') AS silent,
           count_if(outcome = 'unanswered') AS unanswered, count_if(decided) AS decided,
           count_if(outcome = 'unanswered' AND response_at IS NOT NULL) AS late,
           list_sort(list(hours_to_response) FILTER (WHERE outcome = 'answered')) AS times,
           count_if(ai_assisted) AS ai_prs, count_if(ai_assisted AND outcome = 'answered') AS ai_answered
    FROM j_verdicts WHERE excluded IS NULL GROUP BY rk
), considered AS (
    SELECT v.rk, count_if(v.merged) AS merged, count_if(v.merged AND v.reviewed_by_other) AS reviewed,
           sum(v.reviews) FILTER (WHERE v.merged) AS reviews,
           count_if(v.has_ci IS NOT NULL AND s.number IS NOT NULL) AS ci_checked,
           count_if(v.has_ci AND s.number IS NOT NULL) AS ci_with
    FROM j_verdicts v LEFT JOIN j_sampled_ci s ON s.rk = v.rk AND s.number = v.number
    WHERE v.excluded IS NULL OR v.excluded NOT IN ('before_window', 'bot')
    GROUP BY v.rk
), firsts AS (
    SELECT rk, count(*) AS first_timers, count_if(merged) AS first_merged, count_if(came_back) AS came_back
    FROM j_first_timers GROUP BY rk
), quantiles AS (
    SELECT rk, n, times, q, (n - 1) * q AS pos FROM outside, (VALUES (0.5::DOUBLE), (0.9::DOUBLE)) AS qs(q)
), times AS (
    SELECT rk,
           max(CASE WHEN q = 0.5 THEN t END) AS median_hours, max(CASE WHEN q = 0.9 THEN t END) AS p90_hours
    FROM (
        SELECT rk, q,
               CASE WHEN n > 0 AND ceil(pos) < len(times)
                    THEN times[floor(pos)::BIGINT + 1] + (times[ceil(pos)::BIGINT + 1] - times[floor(pos)::BIGINT + 1]) * (pos - floor(pos))
               END AS t
        FROM quantiles
    ) GROUP BY rk
)
SELECT r.name_with_owner AS repo,
       coalesce(o.n, 0) AS outside_prs, coalesce(o.answered, 0) AS answered, coalesce(o.silent, 0) AS closed_silently,
       coalesce(o.unanswered, 0) AS unanswered, coalesce(o.decided, 0) AS decided, t.median_hours, t.p90_hours,
       coalesce(o.ai_prs, 0) AS ai_prs, coalesce(o.ai_answered, 0) AS ai_answered,
       coalesce(c.merged, 0) AS merged, coalesce(c.reviewed, 0) AS reviewed, coalesce(c.reviews, 0) AS reviews,
       coalesce(c.ci_checked, 0) AS ci_checked, coalesce(c.ci_with, 0) AS ci_with,
       coalesce(f.first_timers, 0) AS first_timers, coalesce(f.first_merged, 0) AS first_timers_merged,
       coalesce(f.came_back, 0) AS first_timers_came_back, coalesce(o.late, 0) AS answered_late
FROM (SELECT name_with_owner, repo_key(name_with_owner) AS rk FROM repositories) r
LEFT JOIN outside o ON o.rk = r.rk
LEFT JOIN considered c ON c.rk = r.rk
LEFT JOIN firsts f ON f.rk = r.rk
LEFT JOIN times t ON t.rk = r.rk;
