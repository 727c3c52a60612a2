"""The background rooms: deletion reaches other domains only through what they offer (their
services, the recordings store), never their repositories or tables; the worker schedules, and
reaches each domain only through its tasks (deletion's jobs and alerts, the recordings' file
work); each of their modules stays small."""

from __future__ import annotations

import ast
from pathlib import Path

import lisan.deletion
import lisan.worker

DELETION = Path(lisan.deletion.__file__).parent
WORKER = Path(lisan.worker.__file__)
# What the worker may reach of a domain: its tasks, and what a task is handed (a file thread, a
# remover of recordings).
WORKER_REACHES = {
    "lisan.auth.tasks",
    "lisan.commands.tasks",
    "lisan.deletion.alerts",
    "lisan.deletion.jobs",
    "lisan.recordings.tasks",
    "lisan.recordings.filework",
    "lisan.recordings.store",
}
INNER = ("repository", "models")  # a domain's own queries and tables
SHARED = ("core", "db")  # the rooms below every domain, no domain of their own


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_deletion_reaches_no_other_domains_repository_or_tables() -> None:
    reached = {
        f"{path.name}: {module}"
        for path in DELETION.glob("*.py")
        for module in imported_modules(path)
        if module.startswith("lisan.")
        and module.split(".")[1] not in ("deletion", *SHARED)
        and module.split(".")[-1] in INNER
    }
    assert reached == set()


def test_the_worker_reaches_each_domain_only_through_its_tasks() -> None:
    packages = {module.rsplit(".", 1)[0] for module in WORKER_REACHES}  # `from lisan.auth import`
    reached = {
        module
        for module in imported_modules(WORKER)
        if module.startswith("lisan.")
        and module.split(".")[1] not in SHARED
        and module not in packages
        and module.rsplit(".", 1)[0] not in WORKER_REACHES  # a name imported from a module
    }
    assert reached <= WORKER_REACHES


def test_deletion_modules_stay_small() -> None:
    modules = [*DELETION.glob("*.py"), WORKER]
    sizes = {path.name: len(path.read_text().splitlines()) for path in modules}
    assert {name: lines for name, lines in sizes.items() if lines >= 300} == {}
