"""What changed between two snapshots: each kind of change from hand-built (status, rank) pairs."""

from hypothesis import given
from hypothesis import strategies as st

from porchlamp.publish.changes import KINDS, compare

STATUSES = ["ranked", "black_hole", "unrated", "undecided", "stale"]


def test_each_kind_of_change() -> None:
    before = {"a/up": ("ranked", 9), "a/down": ("ranked", 2), "a/same": ("ranked", 5), "a/hole": ("ranked", 1),
              "a/back": ("black_hole", None), "a/gone": ("ranked", 7), "a/still-hole": ("black_hole", None), "a/moved-off": ("ranked", 6)}
    after = {"a/up": ("ranked", 3), "a/down": ("ranked", 8), "a/same": ("ranked", 5), "a/hole": ("black_hole", None),
             "a/back": ("ranked", 4), "a/gone": ("unrated", None), "a/still-hole": ("black_hole", None), "a/new": ("ranked", 1),
             "a/moved-off": ("undecided", None), "a/born-off": ("undecided", None)}
    got = {c.repo: (c.kind, c.words) for c in compare(before, after)}
    assert got == {
        "a/hole": ("new_black_hole", "became a black hole (was ranked)"),
        "a/back": ("recovered", "recovered: no longer a black hole, now ranked at rank 4"),
        "a/moved-off": ("became_undecided", "now reviews elsewhere, so it is undecided (was ranked)"),
        "a/new": ("newly_ranked", "newly ranked at 1 (new to Porchlamp)"),
        "a/gone": ("no_longer_ranked", "no longer ranked: now unrated (was rank 7)"),
        "a/up": ("moved", "rank 9 → 3 (up 6)"),
        "a/down": ("moved", "rank 2 → 8 (down 6)"),
    }
    # Kinds in a fixed order, the biggest move first within "moved".
    assert [c.kind for c in compare(before, after)] == ["new_black_hole", "recovered", "became_undecided", "newly_ranked", "no_longer_ranked",
                                                   "moved", "moved"]


@given(st.dictionaries(st.text("abc/", min_size=1, max_size=4), st.tuples(st.sampled_from(STATUSES), st.integers(1, 50)), max_size=20),
       st.dictionaries(st.text("abc/", min_size=1, max_size=4), st.tuples(st.sampled_from(STATUSES), st.integers(1, 50)), max_size=20))
def test_no_change_is_reported_between_a_snapshot_and_itself_and_every_change_is_real(b: dict, a: dict) -> None:
    norm = lambda d: {k: (s, r if s == "ranked" else None) for k, (s, r) in d.items()}  # noqa: E731
    before, after = norm(b), norm(a)
    assert compare(after, after) == []
    for c in compare(before, after):
        assert c.kind in KINDS and (before.get(c.repo, (None, None)) != after[c.repo])
