"""Porchlamp: which open-source projects answer a stranger's pull request.

Stages: collect (GitHub GraphQL → store), evaluate (pure, as_of-driven), publish (site + dataset).
"""

__version__ = "0.1.0"
