"""The worker's room: deletion schedules, and reaches other domains only through what they
offer (their services, the recordings store), never their repositories or tables; each of its
modules stays small."""

from __future__ import annotations

import ast
from pathlib import Path

import lisan.deletion

DELETION = Path(lisan.deletion.__file__).parent
INNER = ("repository", "models")  # a domain's own queries and tables


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
        and module.split(".")[1] not in ("deletion", "core")
        and module.split(".")[-1] in INNER
    }
    assert reached == set()


def test_deletion_modules_stay_small() -> None:
    sizes = {path.name: len(path.read_text().splitlines()) for path in DELETION.glob("*.py")}
    assert {name: lines for name, lines in sizes.items() if lines >= 300} == {}
