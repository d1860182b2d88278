"""Records built by `models.builder` are the model's own: equal, equally hashed, as frozen, for
every stored model, any values, given in order or by name; a model whose __init__ does more is
refused. A PR verdict is a named tuple, made from its row as from its fields, and as read-only."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields

import pytest
from hypothesis import given, strategies as st

from porchlamp.evaluate.pulls import PRVerdict, Response
from porchlamp.models import builder
from porchlamp.store.db import MODEL_OF_TABLE

BUILT = MODEL_OF_TABLE

_VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20), st.datetimes(),
                    st.tuples(st.text(max_size=5)))


@pytest.mark.parametrize("model", list(BUILT.values()), ids=list(BUILT))
@given(data=st.data())
def test_a_built_record_is_the_models_own(model: type, data: st.DataObject) -> None:
    values = data.draw(st.tuples(*[_VALUES for _ in fields(model)]))
    named = dict(zip((f.name for f in fields(model)), values))
    made = model(*values)
    for built in (builder(model)(*values), builder(model)(**dict(reversed(named.items())))):
        assert type(built) is model
        assert built == made and hash(built) == hash(made) and repr(built) == repr(made)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(built, fields(model)[0].name, "changed")


def test_every_field_must_be_given() -> None:
    model = MODEL_OF_TABLE["accounts"]
    with pytest.raises(TypeError):
        builder(model)(*[None] * (len(fields(model)) - 1))


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
