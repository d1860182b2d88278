"""GitHub's GraphQL cost model, computed statically from a query before it runs.

Every connection is assumed to return its full `first`/`last`: a connection costs one request
per parent node that can reach it. Cost = round(requests / 100), at least 1. Nodes are capped at
500,000, `first`/`last` must lie in 1-100 and `nodes(ids:)` takes at most 100 IDs, as on GitHub.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    get_named_type,
    value_from_ast_untyped,
)

MAX_NODES = 500_000
MAX_PAGE = 100
MAX_IDS = 100


class CostError(Exception):
    """The query breaks a limit; `message` is GitHub's wording, `kind` its error type."""

    def __init__(self, message: str, kind: str = "EXCESSIVE_PAGINATION") -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Cost:
    requests: int
    nodes: int

    @property
    def points(self) -> int:
        return max(1, int(self.requests / 100 + 0.5))


def operation(doc: DocumentNode, name: str | None) -> OperationDefinitionNode:
    ops = [d for d in doc.definitions if isinstance(d, OperationDefinitionNode)]
    if name:
        ops = [o for o in ops if o.name and o.name.value == name]
    if len(ops) != 1:
        raise CostError("Must provide operation name if query contains multiple operations" if not name else f"Unknown operation named \"{name}\".")
    return ops[0]


def query_cost(schema: GraphQLSchema, doc: DocumentNode, op_name: str | None, variables: dict[str, Any]) -> Cost:
    op = operation(doc, op_name)
    fragments = {d.name.value: d for d in doc.definitions if isinstance(d, FragmentDefinitionNode)}
    root = schema.query_type
    totals = {"requests": 0, "nodes": 0}

    def arg(field: FieldNode, name: str) -> Any:
        for a in field.arguments or ():
            if a.name.value == name:
                return value_from_ast_untyped(a.value, variables)
        return None

    def walk(sel: SelectionSetNode | None, parent_type: Any, mult: int) -> None:
        if sel is None:
            return
        for node in sel.selections:
            if isinstance(node, FragmentSpreadNode):
                frag = fragments.get(node.name.value)
                if frag:
                    walk(frag.selection_set, schema.get_type(frag.type_condition.name.value), mult)
                continue
            if isinstance(node, InlineFragmentNode):
                t = schema.get_type(node.type_condition.name.value) if node.type_condition else parent_type
                walk(node.selection_set, t, mult)
                continue
            assert isinstance(node, FieldNode)
            fields = getattr(parent_type, "fields", {})
            fdef = fields.get(node.name.value)
            if fdef is None:
                continue
            ftype = get_named_type(fdef.type)
            child = mult
            if ftype.name.endswith("Connection"):
                first, last = arg(node, "first"), arg(node, "last")
                size = first if first is not None else last
                if size is None:
                    raise CostError(f"You must provide a `first` or `last` value to properly paginate the `{node.name.value}` connection.")
                which = "first" if first is not None else "last"
                if size > MAX_PAGE:
                    raise CostError(f"Requesting {size} records on the `{node.name.value}` connection exceeds the `{which}` limit of {MAX_PAGE} records.")
                if size < 1:
                    raise CostError(f"`{which}` on the `{node.name.value}` connection cannot be less than 1.")
                totals["requests"] += mult
                child = mult * size
                totals["nodes"] += child
                if totals["nodes"] > MAX_NODES:
                    raise CostError(f"By the time this query traverses to the {node.name.value} connection, it is requesting up to "
                                    f"{totals['nodes']:,} possible nodes which exceeds the maximum limit of {MAX_NODES:,}.",
                                    "MAX_NODE_LIMIT_EXCEEDED")
            elif node.name.value == "nodes" and parent_type is root:
                ids = arg(node, "ids") or []
                if len(ids) > MAX_IDS:
                    raise CostError(f"You may not provide more than {MAX_IDS} node ids; you provided {len(ids)}.", "ARGUMENT_LIMIT")
                child = mult * max(1, len(ids))
            walk(node.selection_set, ftype, child)

    walk(op.selection_set, root, 1)
    return Cost(totals["requests"], totals["nodes"])
