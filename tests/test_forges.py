"""A project's identity: host and path in one name, GitHub's names unchanged."""

from hypothesis import given
from hypothesis import strategies as st

from porchlamp import forges

GITHUB_OWNER = st.from_regex(r"\A[A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9]){0,10}\Z")
NAME = st.from_regex(r"\A[A-Za-z0-9_][A-Za-z0-9_.-]{0,12}\Z").filter(lambda s: not s.endswith((".git", ".atom", ".")))
HOSTS = st.sampled_from(sorted(h for h in forges.packaged_hosts() if h != forges.GITHUB_HOST))


@given(GITHUB_OWNER, NAME)
def test_github_names_stay_as_they_are(owner: str, name: str) -> None:
    repo = f"{owner}/{name}"
    assert forges.split(repo) == ("github.com", repo) and forges.join("github.com", repo) == repo
    assert forges.parse(forges.web_url(repo)) == repo and forges.forge_of(repo) == "github"


@given(HOSTS, st.lists(NAME, min_size=2, max_size=5))
def test_other_hosts_keep_their_host_and_nested_path(host: str, parts: list[str]) -> None:
    path = "/".join(parts)
    repo = forges.join(host, path)
    assert repo == f"{host}/{path}" and forges.split(repo) == (host, path)
    assert forges.parse(forges.web_url(repo)) == repo and forges.parse(repo) == repo
    assert forges.forge_of(repo) == forges.packaged_hosts()[host].forge


def test_addresses_and_words_of_each_forge() -> None:
    assert forges.change_url("octo/hello", 7) == "https://github.com/octo/hello/pull/7"
    assert forges.change_url("gitlab.gnome.org/GNOME/gtk", 7) == "https://gitlab.gnome.org/GNOME/gtk/-/merge_requests/7"
    assert forges.change_url("codeberg.org/forgejo/forgejo", 7) == "https://codeberg.org/forgejo/forgejo/pulls/7"
    assert forges.issue_url("gitlab.com/a/b", 3) == "https://gitlab.com/a/b/-/issues/3"
    assert forges.change_words("gitlab") == ("merge request", "MR") and forges.change_words("github") == ("pull request", "PR")


def test_every_packaged_host_says_where_it_is_known_from() -> None:
    for host in forges.packaged_hosts().values():
        assert host.forge in forges.FORGES and host.api.startswith("https://") and host.source.startswith("http")


def test_the_hosts_macro_agrees_with_split() -> None:
    import duckdb

    conn = duckdb.connect()
    conn.execute(forges.HOST_MACRO)
    for repo in ("octo/hello", "gitlab.com/a/b/c", "GitLab.Example.org/x/y", "a.b/c"):
        assert conn.execute("SELECT repo_host(?)", [repo]).fetchone()[0] == forges.host_of(repo)
