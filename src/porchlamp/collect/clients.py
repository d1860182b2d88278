"""The clients a collection needs: one for each forge host its repositories live on, each with its
own API address and token (a token per host, never logged).

GitHub's comes from `--api` and GITHUB_TOKEN (or `gh auth token`); a GitLab host's API from
porchlamp.toml's `[hosts]` or the packaged list (or `--host-api HOST=URL`), its token from
`PORCHLAMP_TOKEN_<HOST>` (`GITLAB_TOKEN` for gitlab.com); a Forgejo or Gitea host's likewise, its
token from `PORCHLAMP_TOKEN_<HOST>` (`PORCHLAMP_TOKEN_CODEBERG_ORG`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from porchlamp import forges
from porchlamp.collect.errors import AuthError
from porchlamp.collect.forgejo.client import ForgejoClient
from porchlamp.collect.forgejo.client import find_token as forgejo_token
from porchlamp.collect.forgejo.client import no_token as forgejo_no_token
from porchlamp.collect.github.client import GraphQLClient
from porchlamp.collect.github.client import find_token as github_token
from porchlamp.collect.gitlab.client import GitLabClient
from porchlamp.collect.gitlab.client import find_token as gitlab_token
from porchlamp.collect.gitlab.client import no_token
from porchlamp.config import Settings


def hosts_of(repos: Iterable[str]) -> list[str]:
    """The hosts a list of projects lives on, GitHub first, then in the order they appear."""
    found = dict.fromkeys(forges.host_of(r) for r in repos)
    return sorted(found, key=lambda h: h != forges.GITHUB_HOST)


def clients_for(repos: Iterable[str], settings: Settings, github_api: str, host_apis: Mapping[str, str] | None = None,
                wait_scale: float = 1.0, env: dict[str, str] | None = None) -> dict[str, Any]:
    """A client for each host of `repos`; an AuthError naming what to set when a token is missing, and
    one for a host whose forge Porchlamp does not collect yet."""
    known = forges.hosts(settings.hosts)
    out: dict[str, Any] = {}
    try:
        for host in hosts_of(repos):
            if host == forges.GITHUB_HOST:
                token = github_token(env)
                if not token:
                    raise AuthError("no GitHub token: set GITHUB_TOKEN or log in with `gh auth login` (for the emulator any value works)")
                out[host] = GraphQLClient(github_api, token, wait_scale=wait_scale)
                continue
            found = known[host]
            conf = settings.hosts.get(host)
            api = (host_apis or {}).get(host) or found.api
            if found.forge == "forgejo":
                token = forgejo_token(host, env)
                if not token:
                    raise AuthError(f"{forgejo_no_token(host)} (an access token with read:repository and read:user; "
                                    "for the emulator any value works)")
                out[host] = ForgejoClient(api, token, host, wait_scale=wait_scale, minute_seconds=60.0 * wait_scale,
                                          per_minute=conf.requests_per_minute if conf else None,
                                          wip_prefixes=conf.wip_prefixes if conf and conf.wip_prefixes else None)
                continue
            if found.forge != "gitlab":
                raise AuthError(f"{host} runs {forges.FORGE_NAMES[found.forge]}, which Porchlamp does not collect yet; "
                                "take its projects out of the repos file")
            token = gitlab_token(host, env)
            if not token:
                raise AuthError(f"{no_token(host)} (a read_api token; for the emulator any value works)")
            # A compressed wait (an emulator's clock) compresses the host's minute alike.
            out[host] = GitLabClient(api, token, host, wait_scale=wait_scale, minute_seconds=60.0 * wait_scale,
                                     per_minute=conf.requests_per_minute if conf else None)
    except BaseException:
        for c in out.values():
            c.close()
        raise
    return out
