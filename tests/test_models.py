"""Records built by `models.builder` are the model's own: equal, equally hashed, as read-only, for
every stored model (a frozen dataclass or a named tuple), any values, given in order or by name, and
for a named tuple made from its row as the shards' reader makes it; a model whose __init__ does
more is refused."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, strategies as st

from porchlamp.models import PullRequest, builder, field_names, is_named_tuple
from porchlamp.store.db import MODEL_OF_TABLE

_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20), st.datetimes(),
                    st.tuples(st.text(max_size=5)))


@pytest.mark.parametrize("model", list(MODEL_OF_TABLE.values()), ids=list(MODEL_OF_TABLE))
@given(data=st.data())
def test_a_built_record_is_the_models_own(model: type, data: st.DataObject) -> None:
    names = field_names(model)
    values = data.draw(st.tuples(*[_VALUES for _ in names]))
    named = dict(zip(names, values))
    made = model(*values)
    ways = [builder(model)(*values), builder(model)(**dict(reversed(named.items())))]
    if is_named_tuple(model):
        ways.append(tuple.__new__(model, values))  # as `shards._records` makes them
    for built in ways:
        assert type(built) is model
        assert built == made and hash(built) == hash(made) and repr(built) == repr(made)
        assert [getattr(built, name) for name in names] == list(values)
        with pytest.raises(AttributeError):  # a frozen dataclass's FrozenInstanceError is one too
            setattr(built, names[0], "changed")


def test_the_records_read_by_the_million_are_named_tuples() -> None:
    """PRs, timeline items and commits are tuples (made in C from a row); a PR still says where it is."""
    tuples = {name for name, model in MODEL_OF_TABLE.items() if is_named_tuple(model)}
    assert tuples == {"pulls", "timeline", "commits"}
    pr = PullRequest("o/r", 7, "n", "t", "a", "User", "NONE", None)  # type: ignore[arg-type]
    assert pr.url == "https://github.com/o/r/pull/7" and pr._replace(number=8).url.endswith("/pull/8")


def test_every_field_must_be_given() -> None:
    model = MODEL_OF_TABLE["accounts"]
    with pytest.raises(TypeError):
        builder(model)(*[None] * (len(field_names(model)) - 1))


def test_a_field_named_like_the_builders_own_names_is_refused() -> None:
    @dataclass(frozen=True, slots=True)
    class Clash:
        _o: int

    with pytest.raises(TypeError, match="Clash"):
        builder(Clash)


def test_models_it_cannot_build_like_their_init_are_refused() -> None:
    @dataclass(slots=True)
    class Open:
        a: int

    @dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            if self.a < 0:
                raise ValueError("negative")

    @dataclass(frozen=True)
    class NoSlots:
        a: int

    for model in (Open, Checked, NoSlots):
        with pytest.raises(TypeError, match=model.__name__):
            builder(model)
