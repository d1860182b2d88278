"""A project's community files as the REST forges show them: names by folder from their listings,
and the texts read (CONTRIBUTING, CODEOWNERS, README, the PR template), into `CommunityFiles`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from porchlamp.models import DOCUMENT_CHARS, CommunityFiles


def community(repo: str, trees: Mapping[str, Iterable[str]], texts: Mapping[str, str | None], ai_files: Iterable[str],
              codeowners: Callable[[str | None], tuple[str, ...]]) -> CommunityFiles:
    """Community files from the names in each folder read (by folder: "" the root, "docs", the forge's
    own) and the texts read (`contributing`, `codeowners`, `template`, `readme`); `codeowners` reads
    the forge's CODEOWNERS syntax."""
    names = {folder: list(entries) for folder, entries in trees.items()}
    low_all = {n.lower() for entries in names.values() for n in entries}
    paths = {(f"{folder}/{n}" if folder else n) for folder, entries in names.items() for n in entries}
    contributing, readme = texts.get("contributing"), texts.get("readme")
    return CommunityFiles(
        repo=repo,
        contributing="contributing.md" in low_all,
        code_of_conduct="code_of_conduct.md" in low_all,
        security_policy="security.md" in low_all,
        governance="governance.md" in {n.lower() for n in names.get("", [])},
        codeowners=codeowners(texts.get("codeowners")),
        ai_policy=tuple(p for p in ai_files if p in paths),
        pr_template=texts.get("template"),
        contributing_text=None if contributing is None else contributing[:DOCUMENT_CHARS],
        readme_text=None if readme is None else readme[:DOCUMENT_CHARS],
    )
