"""Mirrors followed (SPEC section 13): a repository that mirrors, or sends its PRs to, a project of the
same snapshot is linked to it, whatever form the address takes; a project is never linked to itself,
nor from a repository where it takes changes."""

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from porchlamp.evaluate.mirrors import follow, names_index, project_in

NAMES = ["gitlab.gnome.org/GNOME/gtk", "gitlab.gnome.org/GNOME/gtk-docs", "gitlab.com/group/sub/tool", "gitlab.com/group/sub",
         "GNOME/gtk", "acme/widget", "codeberg.org/forgejo/forgejo"]
INDEX = names_index(NAMES)


def row(repo: str, status: str = "undecided", kind: str = "gitlab", review_happens: str | None = None,
        description: str | None = None) -> dict[str, Any]:
    return {"repo": repo, "status": status, "kind": kind, "review_happens": review_happens, "description": description}


def test_the_longest_path_that_is_a_project_is_the_one_named() -> None:
    assert project_in("https://gitlab.com/group/sub/tool/-/merge_requests/3", INDEX, "x/y") == "gitlab.com/group/sub/tool"
    assert project_in("https://gitlab.com/group/sub/-/issues", INDEX, "x/y") == "gitlab.com/group/sub"
    assert project_in("https://gitlab.com/group/sub/other", INDEX, "x/y") == "gitlab.com/group/sub"
    assert project_in("https://gitlab.gnome.org/GNOME/gtk-docs", INDEX, "x/y") == "gitlab.gnome.org/GNOME/gtk-docs"
    # GitHub's and Forgejo's own pages under a project, and a clone address.
    assert project_in("see https://github.com/acme/widget/pulls?q=is%3Aopen.", INDEX, "x/y") == "acme/widget"
    assert project_in("git clone https://codeberg.org/forgejo/forgejo.git", INDEX, "x/y") == "codeberg.org/forgejo/forgejo"
    assert project_in("Mirror of gitlab.gnome.org/GNOME/gtk.", INDEX, "x/y") == "gitlab.gnome.org/GNOME/gtk"


def test_no_link_to_itself_nor_to_what_is_not_in_the_snapshot() -> None:
    assert project_in("https://github.com/GNOME/gtk", INDEX, "GNOME/gtk") is None
    assert project_in("https://gitlab.gnome.org/GNOME/glib", INDEX, "GNOME/gtk") is None
    assert project_in("https://gitlab.gnome.org/GNOME", INDEX, "GNOME/gtk") is None  # a group is not a project
    assert project_in("dev@lists.gtk.example.org", INDEX, "GNOME/gtk") is None
    assert project_in(None, INDEX, "GNOME/gtk") is None
    # A longer path under a project is a page of it: GitLab's older addresses have no `/-/`.
    assert project_in("https://gitlab.com/group/sub/toolkit", INDEX, "x/y") == "gitlab.com/group/sub"


def test_only_a_repository_that_is_not_where_changes_are_taken_is_linked() -> None:
    where = "https://gitlab.gnome.org/GNOME/gtk"
    links = follow([row("GNOME/gtk", review_happens=where),
                    row("a/ranked", status="ranked", kind="responsive", review_happens=where),
                    row("a/hole", status="black_hole", kind="clear", description=f"Read-only mirror of {where}"),
                    row("a/fork", status="not_real_project", kind="fork", description=f"Fork of {where}"),
                    row("a/flagged", status="not_real_project", kind="mirror", description=f"Mirror of {where}"),
                    row("a/list", status="undecided", kind="mailing_list", review_happens="dev@lists.example.org",
                        description=f"Read-only mirror of {where}")], INDEX)
    assert [(x.repo, x.home, x.how) for x in links] == [("GNOME/gtk", "gitlab.gnome.org/GNOME/gtk", "review_happens"),
                                                          ("a/flagged", "gitlab.gnome.org/GNOME/gtk", "description"),
                                                          ("a/list", "gitlab.gnome.org/GNOME/gtk", "description")]


@given(name=st.sampled_from([n for n in NAMES if "." in n.split("/")[0]]), scheme=st.sampled_from(["https://", "http://", ""]),
       tail=st.sampled_from(["", "/", ".git", "/-/merge_requests/12", "/-/tree/main", "#readme", "?tab=readme", "."]),
       upper=st.booleans(), before=st.sampled_from(["", "Please open a merge request at ", "(", "Mirror of "]))
def test_every_form_of_a_projects_address_names_it(name: str, scheme: str, tail: str, upper: bool, before: str) -> None:
    address = f"{before}{scheme}{name.upper() if upper else name}{tail}"
    assert project_in(address, INDEX, "some/where") == name
