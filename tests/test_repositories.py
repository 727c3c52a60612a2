"""Every domain's repository takes the database one way and names its queries one way.

Each query takes one handle, `lisan.db.handle.Db`, first and always as `db`: which driver runs
it is the database layer's business. Each is named with one scheme of verbs, so a caller reads
what a query does from its name alone: `get_` (one row or value, or None), `list_` (many), `count_`,
`exists_` (whether a row is there), `insert_` (`_once`/`_if_absent`: no error when the row
exists), `upsert_`, `update_` (True when it matched, where it answers), `delete_`,
`purge_expired_` (a batch of what has expired: the count), `lock_` (a row lock, until the
transaction ends)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import lisan
from lisan.db.handle import Db

VERBS = (
    "get_",
    "list_",
    "count_",
    "exists_",
    "insert_",
    "upsert_",
    "update_",
    "delete_",
    "purge_expired_",
    "lock_",
)
# Not a query on a table: the transaction's own statement time limit.
OUTSIDE_THE_SCHEME = {"lisan.billing.repository.limit_statement_time"}


def repository_queries() -> dict[str, object]:
    found: dict[str, object] = {}
    for package in pkgutil.iter_modules(lisan.__path__):
        name = f"lisan.{package.name}.repository"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        for attribute, value in vars(module).items():
            public = not attribute.startswith("_")
            if public and inspect.iscoroutinefunction(value) and value.__module__ == name:
                found[f"{name}.{attribute}"] = value
    return found


def test_every_repository_query_is_named_by_one_scheme_of_verbs() -> None:
    queries = repository_queries()
    assert len(queries) > 40  # every domain's repository was found
    misnamed = {
        qualified
        for qualified in queries
        if not qualified.rsplit(".", 1)[1].startswith(VERBS) and qualified not in OUTSIDE_THE_SCHEME
    }
    assert misnamed == set()


def test_every_repository_query_takes_the_one_database_handle_first_as_db() -> None:
    queries = repository_queries()
    assert len(queries) > 40
    elsewise = {}
    for qualified, query in queries.items():
        assert callable(query)
        first = next(iter(inspect.signature(query, eval_str=True).parameters.values()))
        if (first.name, first.annotation) != ("db", Db):
            elsewise[qualified] = (first.name, first.annotation)
    assert elsewise == {}
