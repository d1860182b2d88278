"""Arrow columns as Python values: the fast path gives what Arrow's own conversion gives."""

from __future__ import annotations

from datetime import date, datetime

import pyarrow as pa
from hypothesis import given, strategies as st

from porchlamp.columns import pydict, pylist

TIMES = st.lists(st.one_of(st.none(), st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31))), max_size=40)


@given(TIMES, st.sampled_from(["s", "ms", "us", "ns"]), st.integers(min_value=1, max_value=3))
def test_timestamps_come_out_as_arrow_gives_them(values: list[datetime | None], unit: str, chunks: int) -> None:
    whole = pa.array(values, pa.timestamp("us"))
    if unit == "ns":  # nanoseconds reach only 1677-2262
        whole = pa.array([v if v is None or 1678 <= v.year <= 2261 else None for v in values], pa.timestamp("us"))
    column = whole.cast(pa.timestamp(unit), safe=False)
    assert pylist(column) == column.to_pylist()
    cut = len(values) // chunks or 1
    chunked = pa.chunked_array([column[i:i + cut] for i in range(0, len(column), cut)] or [column], column.type)
    assert pylist(chunked) == chunked.to_pylist()


@given(st.lists(st.one_of(st.none(), st.dates(min_value=date(1, 1, 1), max_value=date(9999, 12, 31))), max_size=40),
       st.integers(min_value=1, max_value=3))
def test_dates_come_out_as_arrow_gives_them(values: list[date | None], chunks: int) -> None:
    column = pa.array(values, pa.date32())
    assert pylist(column) == column.to_pylist()
    assert all(v is None or type(v) is date for v in pylist(column))
    cut = len(values) // chunks or 1
    chunked = pa.chunked_array([column[i:i + cut] for i in range(0, len(column), cut)] or [column], column.type)
    assert pylist(chunked) == chunked.to_pylist()


def test_other_columns_and_zoned_timestamps_are_arrows_own() -> None:
    table = pa.table({
        "at": pa.array([datetime(2026, 10, 15, 1, 2, 3, 456789), None], pa.timestamp("us")),
        "zoned": pa.array([datetime(2026, 10, 15), None], pa.timestamp("us", tz="UTC")),
        "n": pa.array([1, None], pa.int32()),
        "day64": pa.array([date(2026, 10, 15), None], pa.date64()),
        "s": pa.array(["<b>", None]),
        "labels": pa.array([["a", "b"], None], pa.list_(pa.string())),
    })
    assert pydict(table) == table.to_pydict()
    assert pydict(table.to_batches()[0]) == table.to_pydict()  # a record batch, as the detail files are read
    assert pydict(table)["at"] == [datetime(2026, 10, 15, 1, 2, 3, 456789), None]
    assert pydict(table)["zoned"][0].tzinfo is not None
