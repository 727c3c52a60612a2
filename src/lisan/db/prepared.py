"""A Core statement compiled once for a driver, and run on the driver itself.

The statements stay SQLAlchemy Core, written once beside their domain's other queries; what
this module skips is SQLAlchemy's execution path, which costs many times what a small
statement costs the driver (see docs/benchmarks.md, "Measured choices"). `Prepared` keeps what
SQLAlchemy would work out on every execution: the SQL, the order of its parameters, the values
a statement carries itself, and SQLAlchemy's own converters for each parameter and each column
returned, so a value is written and read back exactly as the engine would (a UUID as SQLite's
32 hex characters, a datetime as its string). A list parameter (`IN`, an expanding bind) is expanded
by SQLAlchemy's own `construct_expanded_state`, once for each length of list seen (the command
path's grants read runs on every command, and the expansion costs more than keeping it); the
values are then placed by position.

Only what the raw paths run is handled: SELECT, and INSERT, UPDATE and DELETE with or without
RETURNING, whose values come from the parameters (an INSERT is compiled for the keys it is
given). A Python-side column default is not applied here: such a statement is refused at
compile time, never run with a column missing.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Dialect, Select
from sqlalchemy.exc import MultipleResultsFound, NoResultFound
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.sql.elements import ClauseElement

Convert = Callable[[Any], Any] | None
MAX_PREPARED = 256  # statements kept per connection: module constants, so few and lasting
MAX_EXPANSIONS = 32  # lengths of list kept per statement (a command's packages: a handful)


class NoDefaultsHere(TypeError):
    """A statement whose column defaults SQLAlchemy computes in Python: run it on an engine."""


@dataclass(frozen=True, slots=True)
class _Expansion:
    """A statement with list parameters, expanded for one length of each list: its SQL, where
    each positional value comes from (a parameter's name, and its index if it is a list's
    element) and the converter of each."""

    sql: str
    sources: tuple[tuple[str, int | None], ...]
    binds: tuple[Convert, ...]


@dataclass(frozen=True, slots=True)
class Prepared:
    """One statement compiled for one dialect, with SQLAlchemy's converters."""

    sql: str
    names: tuple[str, ...]  # bind parameters, in the order the driver takes them
    fixed: dict[str, Any]  # values the statement carries itself, by name
    binds: tuple[Convert, ...]  # the converter of each, in that order
    converters: Mapping[str, Convert]  # the same by name, for a list parameter's expansion
    converting: tuple[tuple[int, Callable[[Any], Any]], ...]  # (column, converter) where any
    row: type[tuple[Any, ...]] | None  # a named tuple of the columns returned, if any
    compiled: Any  # SQLAlchemy's compiled form, for a statement with a list parameter
    lists: tuple[str, ...]  # the list parameters' names (none: nothing to expand)
    expansions: dict[tuple[int, ...], _Expansion]  # by the lists' lengths

    @classmethod
    def of(cls, statement: ClauseElement, dialect: Dialect, keys: Sequence[str]) -> Prepared:
        is_dml = isinstance(statement, UpdateBase)
        compiled = statement.compile(dialect=dialect, column_keys=list(keys) if is_dml else None)
        assert isinstance(compiled, SQLCompiler)
        if getattr(compiled, "insert_prefetch", None) or getattr(compiled, "update_prefetch", None):
            raise NoDefaultsHere(f"{type(statement).__name__} needs column defaults computed")
        names = tuple(compiled.positiontup or ())
        fixed = {
            name: compiled.binds[name].effective_value
            for name in names
            if not compiled.binds[name].required
        }
        binds = tuple(
            compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect)
            for name in names
        )
        converters = dict(zip(names, binds, strict=True))
        columns = _returned(statement)
        results = tuple(
            kind.dialect_impl(dialect).result_processor(dialect, None) for _, kind in columns
        )
        row = _row_of([key for key, _ in columns]) if columns else None
        return cls(
            sql=str(compiled),
            names=names,
            fixed=fixed,
            binds=binds,
            converters=converters,
            converting=tuple((i, f) for i, f in enumerate(results) if f is not None),
            row=row,
            compiled=compiled,
            lists=tuple(p.key for p in getattr(compiled, "post_compile_params", ()) or ()),
            expansions={},
        )

    def arguments(self, parameters: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
        """The SQL and its positional values for `parameters`, converted for the driver."""
        if self.lists:
            return self._expanded(parameters)
        fixed = self.fixed
        return self.sql, _converted(
            self.binds, (fixed[name] if name in fixed else parameters[name] for name in self.names)
        )

    def _expanded(self, parameters: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
        given = {**self.fixed, **parameters}
        for name in self.lists:  # a set or any other collection: its elements by position
            if not isinstance(given[name], list | tuple):
                given[name] = list(given[name])
        shape = tuple(len(given[name]) for name in self.lists)
        expansion = self.expansions.get(shape)
        if expansion is None:
            expansion = self._expand(given)
            if expansion is None:  # a list of tuples (a tuple IN): expanded for each call
                state = self.compiled.construct_expanded_state(given)
                return state.statement, _converted(
                    self._converters(state), state.positional_parameters
                )
            if len(self.expansions) >= MAX_EXPANSIONS:
                self.expansions.clear()
            self.expansions[shape] = expansion
        return expansion.sql, _converted(
            expansion.binds,
            (given[name] if at is None else given[name][at] for name, at in expansion.sources),
        )

    def _expand(self, given: dict[str, Any]) -> _Expansion | None:
        """SQLAlchemy's expansion for these lists' lengths, kept as positions (None for a
        list whose elements are tuples: their positions are not one per element)."""
        if any(isinstance(next(iter(given[name]), None), tuple) for name in self.lists):
            return None
        state = self.compiled.construct_expanded_state(given)
        element_of = {
            expanded: (name, at)
            for name, names in state.parameter_expansion.items()
            for at, expanded in enumerate(names)
        }
        sources = tuple(element_of.get(name, (name, None)) for name in state.positiontup)
        return _Expansion(state.statement, sources, self._converters(state))

    def _converters(self, state: Any) -> tuple[Convert, ...]:
        # The expanded parameters' converters are the expansion's; the others' the statement's.
        expanded, own = state.processors, self.converters
        return tuple(expanded.get(name) or own.get(name) for name in state.positiontup)

    def convert(self, raw: Sequence[Any]) -> Any:
        """A row as the driver gave it, its columns converted, as the named tuple."""
        assert self.row is not None
        values = list(raw)
        for at, convert in self.converting:
            values[at] = convert(values[at])
        return tuple.__new__(self.row, values)


def _converted(converters: Sequence[Convert], values: Iterable[Any]) -> tuple[Any, ...]:
    """Each value through its converter (None: as it is), in order; as many of each."""
    return tuple(
        value if convert is None else convert(value)
        for convert, value in zip(converters, values, strict=True)
    )


def _returned(statement: ClauseElement) -> list[tuple[str, Any]]:
    """(key, type) of each column the statement returns: a SELECT's, or a DML's RETURNING."""
    if isinstance(statement, Select):
        return [(str(column.key or ""), column.type) for column in statement.selected_columns]
    if isinstance(statement, UpdateBase):
        return [(str(d["name"]), d["type"]) for d in statement.returning_column_descriptions]
    return []


def _row_of(keys: list[str]) -> type[tuple[Any, ...]]:
    """A named tuple of these column keys: a row with its columns as attributes (a key that
    cannot be one, such as a bare count's, is named by its position)."""
    return namedtuple("Row", keys, rename=True)


class PreparedCache:
    """`Prepared` statements of one dialect, by statement (identity) and, for DML, the keys it
    was given. Bounded: a statement built per call is compiled per call, never kept forever."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self._kept: dict[tuple[ClauseElement, frozenset[str] | None], Prepared] = {}

    def get(self, statement: ClauseElement, parameters: dict[str, Any]) -> Prepared:
        keys = frozenset(parameters) if isinstance(statement, UpdateBase) else None
        prepared = self._kept.get((statement, keys))
        if prepared is None:
            prepared = Prepared.of(statement, self.dialect, list(parameters))
            if len(self._kept) >= MAX_PREPARED:
                self._kept.clear()
            self._kept[(statement, keys)] = prepared
        return prepared


class Rows:
    """What a raw execution returns, read as SQLAlchemy's results are read: rows with their
    columns as attributes, `scalars()`, `first()`, and `rowcount` for an UPDATE or DELETE."""

    __slots__ = ("_rows", "rowcount")

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)

    def all(self) -> list[Any]:
        return self._rows

    def first(self) -> Any | None:
        return self._rows[0] if self._rows else None

    def scalars(self) -> Iterator[Any]:
        return (row[0] for row in self._rows)

    def scalar_one_or_none(self) -> Any | None:
        if len(self._rows) > 1:
            raise MultipleResultsFound("more than one row where one at most was expected")
        return self._rows[0][0] if self._rows else None

    def scalar_one(self) -> Any:
        if len(self._rows) != 1:
            raise (NoResultFound if not self._rows else MultipleResultsFound)(
                f"{len(self._rows)} rows where exactly one was expected"
            )
        return self._rows[0][0]
