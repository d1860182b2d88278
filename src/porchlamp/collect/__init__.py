"""Collection from GitHub's GraphQL API (or the emulator) into the store: the only networked stage."""

from porchlamp.collect.client import AuthError, CollectError, GraphQLClient, NetworkError, QueryError, find_token, redact
from porchlamp.collect.collector import CollectOptions, Collector, CollectSummary
from porchlamp.collect.repos_file import ReposFileError, read_repos_file

__all__ = ["AuthError", "CollectError", "CollectOptions", "CollectSummary", "Collector", "GraphQLClient", "NetworkError",
           "QueryError", "ReposFileError", "find_token", "read_repos_file", "redact"]
