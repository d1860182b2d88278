"""Porchlamp's own errors: the ones a user can act on, each with a message that says what to fix.

The command line turns these, and only these, into one line and exit status 2; any other exception
is a bug and keeps its traceback. The tree, drawn once:

    PorchlampError
    ├── ConfigError      a configuration file or value (config.py)
    ├── StoreError       the store file (store/)
    ├── SnapshotError    an evaluated snapshot asked for (snapshot.py)
    ├── WorldError       a sample world directory or size (sample/)
    ├── SiteError        a site directory (publish/)
    │   └── AuditError   a new site that says what its data contradicts (publish/audit.py)
    ├── FaultSpecError   an emulator fault spec (emulator/faults.py)
    ├── ReposFileError   a repos file (collect/repos_file.py)
    ├── CheckError       one repository that cannot be checked (check.py)
    └── CollectError     collection cannot go on (collect/client.py: AuthError, NetworkError, QueryError)
"""

from __future__ import annotations


class PorchlampError(Exception):
    """An error the user can fix; its message says what to do."""


class WorldError(PorchlampError):
    """A sample world that cannot be made or read as asked."""


class SiteError(PorchlampError):
    """A site directory that cannot be written or served."""


class AuditError(SiteError):
    """A new generation of the site whose pages contradict its data: it is not switched in."""

    def __init__(self, message: str, contradictions: list[object]) -> None:
        super().__init__(message)
        self.contradictions = contradictions
