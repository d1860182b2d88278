"""The store's tables as numbered migrations, each applied once and recorded in `schema_migrations`.

A migration is only ever appended (its SQL may change only to reach the same tables another way);
a store whose recorded version is newer than the last one here was written by a newer Porchlamp
and is refused rather than misread.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    sql: str


# Where `pr_results` and `results` (views) are kept: each verdict once, and which snapshots hold it.
PR_VERDICTS, SNAPSHOT_PRS = "pr_verdicts", "snapshot_prs"
REPO_VERDICTS, SNAPSHOT_REPOS = "repo_verdicts", "snapshot_repos"
STORED_ONCE: dict[str, tuple[str, str]] = {"pr_results": (PR_VERDICTS, SNAPSHOT_PRS), "results": (REPO_VERDICTS, SNAPSHOT_REPOS)}


def _stored_once(table: str) -> str:
    """SQL that moves each row of `table` (one per snapshot and verdict) to its verdicts' table, listed by
    its snapshot (`STORED_ONCE`), and makes `table` a view of the two. A row is numbered by its place in
    the table (`rowid`): the copy streams, with no sort and no temporary table of the rows (which held a
    store's every result in memory: 10.8 GB for 60 days at 11,000 repositories)."""
    verdicts, listing = STORED_ONCE[table]
    return f"""
        CREATE TABLE {verdicts} AS SELECT rowid + 1 AS id, * EXCLUDE (as_of) FROM {table};
        CREATE TABLE {listing} AS SELECT as_of, rowid + 1 AS id FROM {table};
        DROP TABLE {table};
        CREATE VIEW {table} AS SELECT s.as_of, v.* EXCLUDE (id) FROM {listing} s JOIN {verdicts} v ON v.id = s.id;
        """


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "raw tables: store_meta, repositories, accounts, pulls, timeline, commits, issues, community, dependents",
        """
        CREATE TABLE store_meta (
            key VARCHAR PRIMARY KEY,
            value VARCHAR
        );
        CREATE TABLE repositories (
            name_with_owner VARCHAR PRIMARY KEY,
            owner_type VARCHAR,
            description VARCHAR,
            homepage_url VARCHAR,
            is_archived BOOLEAN,
            is_fork BOOLEAN,
            is_mirror BOOLEAN,
            parent VARCHAR,
            parent_stars INTEGER,
            parent_archived BOOLEAN,
            stars INTEGER,
            forks INTEGER,
            disk_usage_kb BIGINT,
            primary_language VARCHAR,
            languages STRUCT(name VARCHAR, bytes BIGINT)[],
            topics VARCHAR[],
            license_spdx VARCHAR,
            default_branch VARCHAR,
            root_files VARCHAR[],
            has_issues BOOLEAN,
            created_at TIMESTAMP,
            pushed_at TIMESTAMP
        );
        CREATE TABLE accounts (
            login VARCHAR PRIMARY KEY,
            type VARCHAR,
            created_at TIMESTAMP
        );
        CREATE TABLE community (
            repo VARCHAR PRIMARY KEY,
            contributing BOOLEAN,
            code_of_conduct BOOLEAN,
            security_policy BOOLEAN,
            governance BOOLEAN,
            codeowners VARCHAR[],
            ai_policy VARCHAR[],
            pr_template VARCHAR
        );
        CREATE TABLE pulls (
            repo VARCHAR,
            number INTEGER,
            node_id VARCHAR,
            title VARCHAR,
            author VARCHAR,
            author_type VARCHAR,
            author_association VARCHAR,
            created_at TIMESTAMP,
            is_draft BOOLEAN,
            state VARCHAR,
            merged_at TIMESTAMP,
            merged_by VARCHAR,
            closed_at TIMESTAMP,
            updated_at TIMESTAMP,
            body VARCHAR,
            has_ci BOOLEAN,
            PRIMARY KEY (repo, number)
        );
        CREATE TABLE timeline (
            node_id VARCHAR PRIMARY KEY,
            repo VARCHAR,
            number INTEGER,
            kind VARCHAR,
            created_at TIMESTAMP,
            actor VARCHAR,
            actor_type VARCHAR,
            actor_association VARCHAR,
            body VARCHAR,
            review_state VARCHAR
        );
        CREATE TABLE commits (
            repo VARCHAR,
            oid VARCHAR,
            committed_at TIMESTAMP,
            author_login VARCHAR,
            author_name VARCHAR,
            author_type VARCHAR,
            message VARCHAR,
            PRIMARY KEY (repo, oid)
        );
        CREATE TABLE issues (
            repo VARCHAR,
            number INTEGER,
            title VARCHAR,
            state VARCHAR,
            labels VARCHAR[],
            assignees INTEGER,
            created_at TIMESTAMP,
            PRIMARY KEY (repo, number)
        );
        CREATE TABLE dependents (
            repo VARCHAR PRIMARY KEY,
            ecosystem VARCHAR,
            package VARCHAR,
            dependent_packages BIGINT,
            dependent_repos BIGINT
        );
        """,
    ),
    Migration(
        2,
        "evaluated snapshots: results, per-PR verdicts, components and profile scores, keyed by as_of",
        """
        CREATE TABLE snapshots (
            as_of DATE PRIMARY KEY,
            settings VARCHAR,
            porchlamp_version VARCHAR,
            repos INTEGER
        );
        CREATE TABLE results (
            as_of DATE,
            repo VARCHAR,
            status VARCHAR,
            kind VARCHAR,
            reason VARCHAR,
            ecosystem VARCHAR,
            ecosystem_why VARCHAR,
            star_bucket VARCHAR,
            stars INTEGER,
            forks INTEGER,
            language VARCHAR,
            description VARCHAR,
            judged BOOLEAN,
            borderline BOOLEAN,
            fork_note VARCHAR,
            review_happens VARCHAR,
            outside_prs INTEGER,
            answered INTEGER,
            closed_silently INTEGER,
            unanswered INTEGER,
            evidence VARCHAR,
            maintainers VARCHAR,
            PRIMARY KEY (as_of, repo)
        );
        CREATE TABLE pr_results (
            as_of DATE,
            repo VARCHAR,
            number INTEGER,
            title VARCHAR,
            author VARCHAR,
            author_association VARCHAR,
            created_at TIMESTAMP,
            clock_start TIMESTAMP,
            excluded VARCHAR,
            outcome VARCHAR,
            response_kind VARCHAR,
            response_actor VARCHAR,
            response_at TIMESTAMP,
            hours_to_response DOUBLE,
            decided BOOLEAN,
            merged BOOLEAN,
            first_timer BOOLEAN,
            ai_assisted BOOLEAN,
            PRIMARY KEY (as_of, repo, number)
        );
        CREATE TABLE component_results (
            as_of DATE,
            repo VARCHAR,
            component VARCHAR,
            score DOUBLE,
            inputs VARCHAR,
            reason VARCHAR,
            PRIMARY KEY (as_of, repo, component)
        );
        CREATE TABLE profile_results (
            as_of DATE,
            repo VARCHAR,
            profile VARCHAR,
            score DOUBLE,
            coverage DOUBLE,
            tier VARCHAR,
            rank INTEGER,
            delta INTEGER,
            explain VARCHAR,
            PRIMARY KEY (as_of, repo, profile)
        );
        """,
    ),
    Migration(
        3,
        "collection state: per repository and stage, committed with the rows it covers",
        """
        CREATE TABLE collect_state (
            repo VARCHAR,
            stage VARCHAR,
            as_of DATE,
            status VARCHAR,
            cursor VARCHAR,
            detail VARCHAR,
            PRIMARY KEY (repo, stage)
        );
        CREATE TABLE repo_names (
            requested VARCHAR PRIMARY KEY,
            name_with_owner VARCHAR
        );
        """,
    ),
    Migration(
        4,
        "project documents for the off-GitHub gate, and account ids for author-filtered commit history",
        """
        ALTER TABLE community ADD COLUMN contributing_text VARCHAR;
        ALTER TABLE community ADD COLUMN readme_text VARCHAR;
        ALTER TABLE accounts ADD COLUMN node_id VARCHAR;
        """,
    ),
    Migration(
        5,
        "response times over all judged outside PRs, for every project (not only those scored)",
        """
        ALTER TABLE results ADD COLUMN median_hours DOUBLE;
        ALTER TABLE results ADD COLUMN p90_hours DOUBLE;
        """,
    ),
    Migration(
        6,
        "what a verdict was computed from, and until when it holds, so a later day can carry it",
        """
        ALTER TABLE results ADD COLUMN valid_until TIMESTAMP;
        ALTER TABLE results ADD COLUMN inputs VARCHAR;
        ALTER TABLE snapshots ADD COLUMN basis VARCHAR;
        """,
    ),
    Migration(
        7,
        "each repository's template sightings, kept while its rows stay the same, so a day counts templates without reading them",
        """
        CREATE TABLE template_sighted (
            repo VARCHAR PRIMARY KEY,
            inputs VARCHAR,
            settings VARCHAR
        );
        CREATE TABLE template_fingerprints (
            repo VARCHAR,
            fp BIGINT,
            number INTEGER,
            fast BOOLEAN,
            actor VARCHAR
        );
        CREATE TABLE template_comments (
            repo VARCHAR,
            login VARCHAR,
            n INTEGER
        );
        """,
    ),
    Migration(
        8,
        "result tables without primary keys: a snapshot is only ever deleted and written whole, and keeping their "
        "indexes cost more than writing the rows",
        "\n".join(f"""
        CREATE TABLE {table}_unkeyed AS SELECT * FROM {table};
        DROP TABLE {table};
        ALTER TABLE {table}_unkeyed RENAME TO {table};
        """ for table in ("results", "pr_results", "component_results", "profile_results")),
    ),
    Migration(
        9,
        "template sightings kept per PR, so a day takes again only the PRs whose rows changed (those kept "
        "per repository are dropped and taken again by the next evaluation)",
        """
        DROP TABLE template_sighted;
        CREATE TABLE template_pr_sighted (
            repo VARCHAR,
            number INTEGER,
            inputs VARCHAR,
            settings VARCHAR
        );
        DELETE FROM template_fingerprints;
        DROP TABLE template_comments;
        CREATE TABLE template_comments (
            repo VARCHAR,
            number INTEGER,
            login VARCHAR,
            n INTEGER
        );
        """,
    ),
    Migration(
        10,
        "each PR's verdict kept whole with the key it was judged under and until when it holds, so a day judges "
        "again only the PRs whose rows or standing changed (PR verdicts of earlier snapshots have no key and are "
        "judged again once)",
        """
        ALTER TABLE pr_results ADD COLUMN reviews INTEGER;
        ALTER TABLE pr_results ADD COLUMN reviewed_by_other BOOLEAN;
        ALTER TABLE pr_results ADD COLUMN has_ci BOOLEAN;
        ALTER TABLE pr_results ADD COLUMN valid_until TIMESTAMP;
        ALTER TABLE pr_results ADD COLUMN inputs VARCHAR;
        """,
    ),
    Migration(
        11,
        "each PR's verdict keeps what its repository's gates read of its timeline (an outside PR's redirect, and the "
        "acts that showed maintainers) with the digest of the rows they came from, so a PR kept from an earlier day "
        "is never read (earlier snapshots' verdicts were judged under other code and are judged again, never kept)",
        """
        ALTER TABLE pr_results ADD COLUMN redirect VARCHAR;
        ALTER TABLE pr_results ADD COLUMN acts VARCHAR;
        ALTER TABLE pr_results ADD COLUMN rows VARCHAR;
        """,
    ),
    Migration(
        12,
        "a PR verdict stored once, however many snapshots hold it (`pr_verdicts`), each snapshot listing its verdicts "
        "(`snapshot_prs`); `pr_results` reads them joined: a day kept about 790,000 verdicts at 11,000 repositories, "
        "and copying them whole was a sixth of its evaluation and a hundred megabytes of store a day",
        _stored_once("pr_results"),
    ),
    Migration(
        13,
        "a repository's verdict stored once, however many snapshots hold it (`repo_verdicts`), each snapshot listing "
        "its verdicts (`snapshot_repos`); `results` reads them joined: a day at 11,000 repositories copied the 6,500 "
        "verdicts it carried, each with its evidence (4 KB on average), about 45 MB of store a day",
        _stored_once("results"),
    ),
    Migration(
        14,
        "what evaluation reads of each comment's and PR's text (fingerprint, curated bot text, redirect, AI marks), "
        "kept beside the text: computed once when the row is stored, under the version of the rule data (m_version), "
        "which a write of the row clears",
        """
        ALTER TABLE timeline ADD COLUMN m_version VARCHAR;
        ALTER TABLE timeline ADD COLUMN m_fp BIGINT;
        ALTER TABLE timeline ADD COLUMN m_chars INTEGER;
        ALTER TABLE timeline ADD COLUMN m_words INTEGER;
        ALTER TABLE timeline ADD COLUMN m_curated BOOLEAN;
        ALTER TABLE timeline ADD COLUMN m_redirect VARCHAR;
        ALTER TABLE pulls ADD COLUMN m_version VARCHAR;
        ALTER TABLE pulls ADD COLUMN m_ai BOOLEAN;
        """,
    ),
    Migration(
        15,
        "every snapshot is evaluated whole: what was kept to carry verdicts between days goes (each verdict's horizon, "
        "the digests of its rows, inputs and maintainers' acts, the snapshot's basis, and the template sightings kept per PR)",
        """
        DROP VIEW pr_results;
        DROP VIEW results;
        ALTER TABLE pr_verdicts DROP COLUMN valid_until;
        ALTER TABLE pr_verdicts DROP COLUMN inputs;
        ALTER TABLE pr_verdicts DROP COLUMN acts;
        ALTER TABLE pr_verdicts DROP COLUMN rows;
        ALTER TABLE repo_verdicts DROP COLUMN valid_until;
        ALTER TABLE repo_verdicts DROP COLUMN inputs;
        ALTER TABLE snapshots DROP COLUMN basis;
        CREATE VIEW pr_results AS SELECT s.as_of, v.* EXCLUDE (id) FROM snapshot_prs s JOIN pr_verdicts v ON v.id = s.id;
        CREATE VIEW results AS SELECT s.as_of, v.* EXCLUDE (id) FROM snapshot_repos s JOIN repo_verdicts v ON v.id = s.id;
        DROP TABLE template_pr_sighted;
        DROP TABLE template_fingerprints;
        DROP TABLE template_comments;
        """,
    ),
    Migration(
        16,
        "each comment's reading of where review happens (SPEC 6) keeps whether it welcomes PRs here (m_welcome): a "
        "maintainer's later \"PRs here are fine\" withdraws a redirect on the same PR",
        """
        ALTER TABLE timeline ADD COLUMN m_welcome BOOLEAN;
        """,
    ),
    Migration(
        17,
        "what a project's PR template, CONTRIBUTING and README say of where review happens (SPEC 6) kept beside them "
        "(m_docs), computed once when they are stored under the reader's version (m_version), which a write of the row "
        "clears: reading them cost every evaluation 1.5 s at 11,000 repositories",
        """
        ALTER TABLE community ADD COLUMN m_version VARCHAR;
        ALTER TABLE community ADD COLUMN m_docs VARCHAR;
        """,
    ),
    Migration(
        18,
        "a project's forge is its own (SPEC 13): each repository says which software its host runs (`forge`, GitHub's "
        "until now), and so does its verdict; an account is a login on one host (`accounts` keyed by host and login: "
        "`alice` on GitLab is not `alice` on GitHub); a project's members with their access level (`members`: GitLab "
        "reports them where GitHub reports associations)",
        """
        ALTER TABLE repositories ADD COLUMN forge VARCHAR DEFAULT 'github';
        CREATE TABLE accounts_by_host (
            login VARCHAR,
            type VARCHAR,
            created_at TIMESTAMP,
            node_id VARCHAR,
            host VARCHAR,
            PRIMARY KEY (host, login)
        );
        INSERT INTO accounts_by_host SELECT login, type, created_at, node_id, 'github.com' FROM accounts;
        DROP TABLE accounts;
        ALTER TABLE accounts_by_host RENAME TO accounts;
        CREATE TABLE members (
            repo VARCHAR,
            login VARCHAR,
            access_level INTEGER,
            PRIMARY KEY (repo, login)
        );
        DROP VIEW results;
        ALTER TABLE repo_verdicts ADD COLUMN forge VARCHAR DEFAULT 'github';
        CREATE VIEW results AS SELECT s.as_of, v.* EXCLUDE (id) FROM snapshot_repos s JOIN repo_verdicts v ON v.id = s.id;
        """,
    ),
    Migration(
        19,
        "mirrors followed (SPEC 13): a repository that mirrors, or sends its PRs to, a project collected in the same "
        "snapshot is linked to it (`mirror_links`, a snapshot's own rows: the link moves when either side is collected "
        "or not), and each result says where (`results.review_at`)",
        """
        CREATE TABLE mirror_links (
            as_of DATE,
            repo VARCHAR,
            home VARCHAR,
            how VARCHAR
        );
        DROP VIEW results;
        CREATE VIEW results AS SELECT s.as_of, v.* EXCLUDE (id), l.home AS review_at FROM snapshot_repos s
            JOIN repo_verdicts v ON v.id = s.id LEFT JOIN mirror_links l ON l.as_of = s.as_of AND l.repo = v.repo;
        """,
    ),
    Migration(
        20,
        "a PR by a bot is not an outside PR, whatever account opened it (SPEC 3): each PR's title and description are "
        "marked when stored, as comments are (the description's fingerprint, and the tool whose PR template it is: "
        "m_fp, m_chars, m_words, m_bot_tool), and each PR verdict says why its author was taken for a bot (bot_reason)",
        """
        ALTER TABLE pulls ADD COLUMN m_fp BIGINT;
        ALTER TABLE pulls ADD COLUMN m_chars INTEGER;
        ALTER TABLE pulls ADD COLUMN m_words INTEGER;
        ALTER TABLE pulls ADD COLUMN m_bot_tool VARCHAR;
        DROP VIEW pr_results;
        ALTER TABLE pr_verdicts ADD COLUMN bot_reason VARCHAR;
        CREATE VIEW pr_results AS SELECT s.as_of, v.* EXCLUDE (id) FROM snapshot_prs s JOIN pr_verdicts v ON v.id = s.id;
        """,
    ),
    Migration(
        21,
        "a tool's PR template is learned from the PRs known bots open (SPEC 3): each PR keeps the fingerprints of its "
        "description's lines that can be a tool's fixed words (m_lines), marked when stored, so the snapshot reads "
        "them without splitting every description again",
        """
        ALTER TABLE pulls ADD COLUMN m_lines BIGINT[];
        """,
    ),
    Migration(
        22,
        "a late answer is not \"no response\" (SPEC 7): each result counts, of its outside PRs not answered in time, "
        "those a person answered after the deadline (answered_late; NULL for snapshots judged before it was counted)",
        """
        DROP VIEW results;
        ALTER TABLE repo_verdicts ADD COLUMN answered_late INTEGER;
        CREATE VIEW results AS SELECT s.as_of, v.* EXCLUDE (id), l.home AS review_at FROM snapshot_repos s
            JOIN repo_verdicts v ON v.id = s.id LEFT JOIN mirror_links l ON l.as_of = s.as_of AND l.repo = v.repo;
        """,
    ),
)

RESULT_TABLES: tuple[str, ...] = ("results", "pr_results", "component_results", "profile_results")
# Every table a snapshot writes rows of: its results, and the links between its projects.
SNAPSHOT_TABLES: tuple[str, ...] = (*RESULT_TABLES, "mirror_links")

LATEST_VERSION = MIGRATIONS[-1].version

# Raw tables in dependency-free order, with the model each row maps to (see store.rows).
RAW_TABLES: tuple[str, ...] = (
    "repositories",
    "accounts",
    "community",
    "pulls",
    "timeline",
    "commits",
    "issues",
    "dependents",
    "members",
)
