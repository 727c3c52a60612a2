"""`db.prepared`: a Core statement compiled once and run on the driver itself. A list
parameter (`IN`) is expanded by SQLAlchemy once for each length of list, and every call still
gets its own values, converted as the engine converts them."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, select, tuple_
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import LisanApp
from lisan.db.prepared import Prepared
from lisan.db.store import unit_of_work
from lisan.grants.repository import GRANTED_AMONG, list_granted_among
from tests.fixtures.devices import register
from tests.fixtures.grants import recorded

ASYNCPG: Dialect = postgresql.asyncpg.dialect()  # type: ignore[no-untyped-call]
DIALECTS = [sqlite.dialect(), ASYNCPG]

_pairs = Table("pairs", MetaData(), Column("n", Integer), Column("s", String))
PAIRS_AMONG = select(_pairs.c.n).where(
    tuple_(_pairs.c.n, _pairs.c.s).in_(bindparam("pairs", expanding=True))
)


def engine_arguments(prepared: Prepared, parameters: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
    """What SQLAlchemy's own expansion gives for these parameters, converted."""
    state = prepared.compiled.construct_expanded_state({**prepared.fixed, **parameters})
    converters = [
        state.processors.get(name) or prepared.converters.get(name) for name in state.positiontup
    ]
    values = tuple(
        value if convert is None else convert(value)
        for convert, value in zip(converters, state.positional_parameters, strict=True)
    )
    return state.statement, values


class ExpansionCount:
    def __init__(self, prepared: Prepared, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        expand = prepared.compiled.construct_expanded_state

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return expand(*args, **kwargs)

        monkeypatch.setattr(prepared.compiled, "construct_expanded_state", counted)


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_a_list_is_expanded_once_for_each_length_and_each_call_gets_its_values(
    dialect: Dialect, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepared = Prepared.of(GRANTED_AMONG, dialect, ["user_id", "packages"])
    calls: list[Any] = [["com.a"], ["com.b"], ["a", "b", "c"], [], ["com.z"], ("x", "y", "z")]
    counted = ExpansionCount(prepared, monkeypatch)
    for packages in calls:
        parameters = {"user_id": uuid.uuid4(), "packages": packages}
        assert prepared.arguments(parameters) == engine_arguments(prepared, parameters)
    # Each comparison expands once itself; the prepared statement once per length (1, 3, 0).
    assert counted.calls == len(calls) + 3


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_a_list_given_as_a_set_is_expanded_by_its_elements(dialect: Dialect) -> None:
    prepared = Prepared.of(GRANTED_AMONG, dialect, ["user_id", "packages"])
    user_id = uuid.uuid4()
    sql, values = prepared.arguments({"user_id": user_id, "packages": frozenset({"a", "b"})})
    as_list = prepared.arguments({"user_id": user_id, "packages": ["a", "b"]})
    assert sql == as_list[0]
    assert values[0] == as_list[1][0]
    assert sorted(values[1:]) == ["a", "b"]


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_a_list_of_tuples_is_expanded_on_each_call_as_sqlalchemy_expands_it(
    dialect: Dialect,
) -> None:
    prepared = Prepared.of(PAIRS_AMONG, dialect, ["pairs"])
    for pairs in ([(1, "a")], [(2, "b"), (3, "c")], [(4, "d")]):
        parameters = {"pairs": pairs}
        assert prepared.arguments(parameters) == engine_arguments(prepared, parameters)


async def test_a_list_read_on_the_driver_answers_as_the_engine_does(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    """The grants a command checks, read through the look-ups' driver connection for lists of
    every length, twice each, and through the engine."""
    device = await register(client)
    await recorded(client, device, "com.a", True)
    await recorded(client, device, "com.b", True)
    await recorded(client, device, "com.c", False)
    asked = [["com.a"], ["com.c"], ["com.a", "com.b"], ["com.c", "com.z"], [], ["com.b", "com.c"]]
    reads = app.services.resources.database.reads
    for packages in asked * 2:
        on_driver = await list_granted_among(reads, device.user_id, packages)
        async with unit_of_work(admin_engine) as db:
            on_engine = await list_granted_among(db, device.user_id, packages)
        assert on_driver == on_engine == {"com.a", "com.b"} & set(packages)
