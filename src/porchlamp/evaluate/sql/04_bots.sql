-- SPEC §3 (bot): the verdict on each account of a repository: its type or form, else the
-- allow-list of people first, then the list, behaviour, patterns and the project's name.
CREATE OR REPLACE TEMP TABLE j_bots AS
SELECT a.repo, a.login, a.type, a.norm,
       a.typed OR (NOT a.human AND (a.named OR b.login IS NOT NULL)) AS bot
FROM j_accounts a LEFT JOIN j_behaviour b ON b.login = a.norm;
