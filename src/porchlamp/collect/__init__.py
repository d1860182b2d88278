"""Collection from each forge's API (or its emulator) into the store: the only networked stage.

The pipeline (`collector`) runs the stages (`stages/`) over each host's adapter (`github/`, `gitlab/`)."""

from porchlamp.collect.collector import Collector
from porchlamp.collect.errors import AuthError, CollectError, NetworkError, QueryError, QueryTimeout, RequestFailed, redact
from porchlamp.collect.github.client import GraphQLClient, find_token
from porchlamp.collect.plan import CollectPlan, plan_collection
from porchlamp.collect.repos_file import ReposFileError, read_repos_file
from porchlamp.collect.run import CollectOptions, CollectSummary

__all__ = ["AuthError", "CollectError", "CollectOptions", "CollectPlan", "CollectSummary", "Collector", "GraphQLClient",
           "NetworkError", "QueryError", "QueryTimeout", "ReposFileError", "RequestFailed", "find_token", "plan_collection",
           "read_repos_file", "redact"]
