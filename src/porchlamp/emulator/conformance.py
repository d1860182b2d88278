"""Proof that a schema subset is GitHub's: every type, field, argument, enum value, union member
and interface of the subset exists in GitHub's published schema with the same type.

Also validates query documents against GitHub's schema, so the collector asks only what exists.
"""

from __future__ import annotations

import os
from pathlib import Path

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLUnionType,
    build_schema,
    parse,
    validate,
)

SCHEMA_PACKAGE = "@octokit/graphql-schema@15.26.1"
_DEFAULT = Path(__file__).resolve().parents[3] / ".cache" / "npm" / "node_modules" / "@octokit" / "graphql-schema" / "schema.graphql"


def github_schema_path() -> Path:
    """Where the pinned published schema was installed (`make test` installs it)."""
    return Path(os.environ.get("PORCHLAMP_GITHUB_SCHEMA", _DEFAULT))


def load_github_schema(path: Path | None = None) -> GraphQLSchema:
    p = path or github_schema_path()
    if not p.exists():
        raise FileNotFoundError(
            f"GitHub's published schema is not at {p}; install it with "
            f"`npm install --prefix .cache/npm {SCHEMA_PACKAGE}` (make test does) or set PORCHLAMP_GITHUB_SCHEMA"
        )
    return build_schema(p.read_text(encoding="utf-8"), assume_valid_sdl=True)


def conformance_problems(subset: GraphQLSchema, github: GraphQLSchema) -> list[str]:
    """Everything in `subset` that GitHub's schema lacks or types differently; empty when it conforms."""
    problems: list[str] = []
    for name, t in subset.type_map.items():
        if name.startswith("__"):
            continue
        g = github.type_map.get(name)
        if g is None:
            problems.append(f"type {name} does not exist on GitHub")
            continue
        if type(g) is not type(t):
            problems.append(f"type {name} is a {type(t).__name__} here but a {type(g).__name__} on GitHub")
            continue
        if isinstance(t, GraphQLEnumType):
            problems += [f"enum value {name}.{v} does not exist on GitHub" for v in t.values if v not in g.values]  # type: ignore[union-attr]
        if isinstance(t, GraphQLUnionType):
            members = {m.name for m in g.types}  # type: ignore[union-attr]
            problems += [f"union {name} has no member {m.name} on GitHub" for m in t.types if m.name not in members]
        if isinstance(t, (GraphQLObjectType, GraphQLInterfaceType)):
            ifaces = {i.name for i in g.interfaces}  # type: ignore[union-attr]
            problems += [f"{name} does not implement {i.name} on GitHub" for i in t.interfaces if i.name not in ifaces]
        if isinstance(t, (GraphQLObjectType, GraphQLInterfaceType, GraphQLInputObjectType)):
            gfields = g.fields  # type: ignore[union-attr]
            for fname, f in t.fields.items():
                gf = gfields.get(fname)
                if gf is None:
                    problems.append(f"field {name}.{fname} does not exist on GitHub")
                    continue
                if str(gf.type) != str(f.type):
                    problems.append(f"field {name}.{fname} is {f.type} here but {gf.type} on GitHub")
                for aname, a in getattr(f, "args", {}).items():
                    ga = gf.args.get(aname)
                    if ga is None:
                        problems.append(f"argument {name}.{fname}({aname}) does not exist on GitHub")
                    elif str(ga.type) != str(a.type):
                        problems.append(f"argument {name}.{fname}({aname}) is {a.type} here but {ga.type} on GitHub")
    return problems


def document_problems(document: str, schema: GraphQLSchema) -> list[str]:
    """Validation errors of a query document against a schema (GitHub's, in CI)."""
    return [e.message for e in validate(schema, parse(document))]
