"""The emulator serves only what GitHub has: its schema subset checked against GitHub's published one."""

from graphql import build_schema
from graphql.type.validate import validate_schema

from porchlamp.emulator import load_schema
from porchlamp.emulator.conformance import conformance_problems, load_github_schema

GITHUB = load_github_schema()


def test_subset_is_a_valid_schema() -> None:
    assert validate_schema(load_schema()) == []


def test_every_type_field_argument_and_value_exists_on_github() -> None:
    subset = load_schema()
    assert conformance_problems(subset, GITHUB) == []
    assert len([t for t in subset.type_map if not t.startswith("__")]) > 60


def test_a_field_github_lacks_is_caught() -> None:
    bad = build_schema("""
        type Query { repository(owner: String!, name: String!): Repository }
        type Repository { name: String! starCount: Int! issues(first: Int, color: String): IssueConnection! }
        type IssueConnection { totalCount: Int! }
        enum IssueState { OPEN CLOSED ARCHIVED }
    """)
    problems = conformance_problems(bad, GITHUB)
    assert "field Repository.starCount does not exist on GitHub" in problems
    assert "argument Repository.issues(color) does not exist on GitHub" in problems
    assert "enum value IssueState.ARCHIVED does not exist on GitHub" in problems
    assert not any("Repository.name" in p for p in problems)
