"""Every query document the collector sends is valid against GitHub's published schema (and the
emulator's subset), and costs what the collector plans for."""

from importlib import resources
from pathlib import Path

import pytest

from porchlamp.emulator import load_schema
from porchlamp.emulator.conformance import document_problems, load_github_schema

GITHUB = load_github_schema()
QUERIES = sorted(p.name for p in resources.files("porchlamp.collect.github.queries").iterdir() if p.name.endswith(".graphql"))
BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_there_are_queries() -> None:
    assert {"repo_meta.graphql", "pull_requests.graphql", "timeline_more.graphql", "ci_checks.graphql",
            "good_first_issues.graphql", "discover.graphql", "history_more.graphql", "pulls_updated.graphql",
            "pulls_by_id.graphql"} <= set(QUERIES)


@pytest.mark.parametrize("name", QUERIES)
def test_query_is_valid_on_github(name: str) -> None:
    doc = resources.files("porchlamp.collect.github.queries").joinpath(name).read_text()
    assert document_problems(doc, GITHUB) == []
    assert document_problems(doc, load_schema()) == []


def test_bench_queries_are_valid_on_github() -> None:
    for p in BENCH.glob("*.graphql"):
        assert document_problems(p.read_text(), GITHUB) == [], p.name


def test_a_wrong_query_is_caught() -> None:
    assert document_problems("{ repository(owner: \"a\", name: \"b\") { stars } }", GITHUB)
