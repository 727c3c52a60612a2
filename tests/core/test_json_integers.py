"""Request bodies read integers as JSON Schema does: a number with a zero fraction is one
(found by the contract fuzz: `"duration_ms": 477.0` was refused on POST /v1/commands)."""

from __future__ import annotations

import pytest

from lisan.core.errors import BadRequest
from lisan.core.schemas import StrictModel, parse_json_body


class Inner(StrictModel):
    count: int


class Body(StrictModel):
    count: int
    ratio: float
    counts: dict[str, int]
    inner: list[Inner]


def test_a_zero_fraction_or_an_exponent_is_still_an_integer() -> None:
    body = parse_json_body(
        b'{"count": 477.0, "ratio": 1, "counts": {"a": 1e3}, "inner": [{"count": 2.0}]}', Body
    )
    assert body == Body(count=477, ratio=1.0, counts={"a": 1000}, inner=[Inner(count=2)])
    assert type(body.count) is int
    assert type(body.ratio) is float


@pytest.mark.parametrize("count", ["477.5", '"477"', "true", "1e400", "null"])
def test_what_is_no_integer_is_refused(count: str) -> None:
    raw = f'{{"count": {count}, "ratio": 0.5, "counts": {{}}, "inner": []}}'.encode()
    with pytest.raises(BadRequest):
        parse_json_body(raw, Body)
