"""Collection from GitHub's GraphQL API (or the emulator) into the store: the only networked stage."""

from porchlamp.collect.client import (AuthError, CollectError, GraphQLClient, NetworkError, QueryError, QueryTimeout, RequestFailed,
                                      find_token, redact)
from porchlamp.collect.collector import CollectOptions, CollectPlan, Collector, CollectSummary, plan_collection
from porchlamp.collect.repos_file import ReposFileError, read_repos_file

__all__ = ["AuthError", "CollectError", "CollectOptions", "CollectPlan", "CollectSummary", "Collector", "GraphQLClient",
           "NetworkError", "QueryError", "QueryTimeout", "ReposFileError", "RequestFailed", "find_token", "plan_collection",
           "read_repos_file", "redact"]
