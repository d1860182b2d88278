"""The evidence table's rows, written in Python for speed, against the template loop they replaced:
the same bytes for any text GitHub could send, escaped; and the dispute link's query against urlencode."""

from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from hypothesis import given, settings
from hypothesis import strategies as st

from markupsafe import Markup, escape

from porchlamp.publish import words
from porchlamp.publish.project import Project
from porchlamp.publish.site import OUTCOME_WORDS, environment, escape_text, evidence_rows, query_text, response_words

LOOP = """{% for x in outside %}
<tr class="outcome-{{ x.outcome }}"><td class="c-pr"><a href="{{ p.change_url(x.number) }}">{{ p.change_mark }}{{ x.number }}</a></td><td class="title">{{ x.title|truncate(120) }}</td><td class="c-author" data-label="Author">{{ x.author }}</td><td class="num c-opened" data-label="Opened">{{ x.created_at|day }}</td>
{% set w = response_words(x.outcome, x.response_kind, x.hours_to_response, 14, not undecided) %}<td class="c-outcome" data-label="Outcome">{{ w[0] }}</td><td class="c-response" data-label="First response">{{ w[1] }}</td><td class="c-by" data-label="By">{{ actor_words(x.response_actor) }}</td></tr>
{% endfor %}
"""

text = st.lists(st.sampled_from(list("ab <>&\"'{}%#\u202e\u00e9\n") + ["<script>", "word ", "x" * 30]), max_size=40).map("".join)
rows = st.lists(st.fixed_dictionaries({
    "outcome": st.sampled_from(list(OUTCOME_WORDS)),
    "number": st.integers(1, 10**6),
    "title": text,
    "author": st.one_of(st.none(), text),
    "created_at": st.one_of(st.none(), st.datetimes(datetime(2020, 1, 1), datetime(2030, 1, 1))),
    "response_kind": st.one_of(st.none(), st.sampled_from(["comment", "review", "merge"]), text),
    "hours_to_response": st.one_of(st.none(), st.floats(0, 10_000)),
    "response_actor": st.one_of(st.none(), text, st.just("github-merge-queue[bot]")),
}), max_size=6)


@settings(max_examples=300, deadline=None)
@given(rows, st.booleans(), text, st.sampled_from([("octo", "github"), ("gitlab.com/group", "gitlab"), ("codeberg.org/team", "forgejo")]))
def test_the_same_bytes_as_the_template_loop(outside: list[dict[str, Any]], undecided: bool, name: str, where: tuple[str, str]) -> None:
    """Each PR linked where its forge keeps it (GitHub's /pull/N, GitLab's /-/merge_requests/N as !N)."""
    env = environment()
    p = Project(repo=f"{where[0]}/{name}", row={"forge": where[1]})
    expected = env.from_string(LOOP).render(outside=outside, p=p, undecided=undecided, response_words=response_words,
                                           actor_words=words.actor_words)
    assert str(evidence_rows(outside, p, undecided)) == expected


def test_hostile_text_is_escaped() -> None:
    row = {"outcome": "answered", "number": 7, "title": "<script>alert(1)</script>", "author": '"><img src=x onerror=alert(1)>',
           "created_at": None, "response_kind": "comment", "hours_to_response": 0.5, "response_actor": "<b>x</b>"}
    html = str(evidence_rows([row], Project(repo="o/n", row={}), False))
    assert "<script>" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "comment after 30 min" in html


@given(st.one_of(st.text(), text, st.integers(), st.floats(allow_nan=False), st.none(), st.booleans(), text.map(Markup)))
def test_plain_escaping_is_markupsafes(value: Any) -> None:
    out = escape_text(value)
    assert type(out) is str
    assert out == str(escape(value))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), st.text(), max_size=4), st.text(alphabet=st.characters(codec="utf-8")))
def test_a_dispute_links_query_is_what_urlencode_writes(fields: dict[str, str], body: str) -> None:
    """The dispute link's text is quoted by a table (`query_text`): the same as the standard library's,
    for every byte of UTF-8 (spaces, '~', '+', '&', '=', newlines, emoji)."""
    fields = {**fields, "body": body + " ~+&=%\n\u00e9\U0001f600"}
    assert query_text(fields) == urlencode(fields)
