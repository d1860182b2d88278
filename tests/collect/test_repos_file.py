from pathlib import Path

import pytest

from porchlamp import forges
from porchlamp.collect.repos_file import ReposFileError, parse_repo, read_repos_file


@pytest.mark.parametrize(("line", "repo"), [
    ("octo/hello", "octo/hello"), ("https://github.com/octo/hello", "octo/hello"), ("https://github.com/octo/hello.git", "octo/hello"),
    ("github.com/octo/hello/", "octo/hello"), ("octo/hello.js", "octo/hello.js"), ("octo/hello/tree/main", None),
    ("octo", None), ("-octo/x", None), ("octo/x y", None), ("<script>/x", None), ("a/..", None),
    # Other forges: host and path, groups nested; a page under /-/ or a .git taken off.
    ("https://gitlab.com/a/b", "gitlab.com/a/b"), ("gitlab.com/group/sub/project", "gitlab.com/group/sub/project"),
    ("https://gitlab.gnome.org/GNOME/gtk", "gitlab.gnome.org/GNOME/gtk"),
    ("https://gitlab.gnome.org/GNOME/gtk/-/merge_requests/12", "gitlab.gnome.org/GNOME/gtk"),
    ("https://invent.kde.org/plasma/kwin.git", "invent.kde.org/plasma/kwin"), ("GitLab.com/a/b", "gitlab.com/a/b"),
    ("gitlab.com/a", None), ("gitlab.com/a/../b", None), ("gitlab.com/-a/b", None), ("gitlab.com/a/b.atom", None),
    ("https://gitlab.com/a/<script>", None),
])
def test_parse_repo(line: str, repo: str | None) -> None:
    assert parse_repo(line) == repo


def test_a_host_whose_forge_is_unknown_is_refused_with_what_to_add(tmp_path: Path) -> None:
    f = tmp_path / "repos.txt"
    f.write_text("octo/hello\ngit.example.org/team/tool\n")
    with pytest.raises(ReposFileError) as err:
        read_repos_file(f)
    assert "line 2" in str(err.value) and '[hosts."git.example.org"]' in str(err.value)
    known = forges.hosts({"git.example.org": {"forge": "gitlab"}})
    assert read_repos_file(f, hosts=known).repos == ("octo/hello", "git.example.org/team/tool")


def test_blank_lines_comments_urls_duplicates(tmp_path: Path) -> None:
    f = tmp_path / "repos.txt"
    f.write_text("# my list\n\nocto/hello\n  https://github.com/octo/world  \nOcto/Hello\nocto/other # a note\n\n")
    got = read_repos_file(f)
    assert got.repos == ("octo/hello", "octo/world", "octo/other") and got.duplicates == 1 and got.from_urls == 1


def test_bad_lines_are_named_and_nothing_is_collected(tmp_path: Path) -> None:
    f = tmp_path / "repos.txt"
    f.write_text("octo/hello\nnot a repo\nocto/x/y\n")
    with pytest.raises(ReposFileError) as err:
        read_repos_file(f)
    assert "line 2" in str(err.value) and "line 3" in str(err.value) and "nothing was collected" in str(err.value)


def test_ten_thousand_lines(tmp_path: Path) -> None:
    f = tmp_path / "repos.txt"
    f.write_text("\n".join(f"org{i % 97}/repo-{i}" for i in range(10_000)))
    assert len(read_repos_file(f).repos) == 10_000
    f.write_text("\n".join(f"bad line {i}" for i in range(10_000)))
    with pytest.raises(ReposFileError, match=r"(?s)10000 line\(s\).*and 9990 more"):
        read_repos_file(f)


def test_empty_and_missing(tmp_path: Path) -> None:
    (tmp_path / "e.txt").write_text("# nothing\n\n")
    with pytest.raises(ReposFileError, match="no repositories"):
        read_repos_file(tmp_path / "e.txt")
    with pytest.raises(ReposFileError, match="not found"):
        read_repos_file(tmp_path / "missing.txt")
