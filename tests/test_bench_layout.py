"""The bench is laid out as a bench: each runnable bench is a top-level module of `bench/` that
imports its parts from the folders (`kit/`, `speed/`, `accuracy/`, `remote/`, `floors/`) and
never another runnable bench; bench's modules import one another in no circle; none outside
the shared floors passes 600 lines; the shared floors are verbatim copies of
../shared/bench/; and the service reads no knob that only a bench sets."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SHARED_FLOORS = ("floor_app.py", "floor_commands.py")  # copies of ../shared/bench/, never edited
MOST_LINES = 600


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(path): path for path in sorted(BENCH.rglob("*.py"))}
SHARED = {f"bench.floors.{name.removesuffix('.py')}" for name in SHARED_FLOORS}


def _imports(path: Path) -> set[str]:
    """The bench modules `path` imports, at any depth of the module."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name in MODULES and name != "bench"}


GRAPH = {name: _imports(path) - {name} for name, path in MODULES.items()}
ENTRY_POINTS = {
    name
    for name, path in MODULES.items()
    if name.count(".") == 1 and 'if __name__ == "__main__"' in path.read_text()
}


def _circles() -> list[list[str]]:
    """Every path that comes back to where it started (depth first from each module)."""
    circles: list[list[str]] = []

    def walk(path: list[str]) -> None:
        for following in sorted(GRAPH[path[-1]]):
            if following == path[0]:
                circles.append([*path, following])
            elif following not in path and following > path[0]:  # each circle found once
                walk([*path, following])

    for start in sorted(GRAPH):
        walk([start])
    return circles


def test_the_bench_modules_import_one_another_in_no_circle() -> None:
    assert _circles() == []


def test_a_runnable_bench_imports_its_parts_from_the_folders_never_another_runnable_bench() -> None:
    assert ENTRY_POINTS, "no runnable bench found"
    crossing = {(name, other) for name in ENTRY_POINTS for other in GRAPH[name] & ENTRY_POINTS}
    assert crossing == set()


def test_only_runnable_benches_stand_at_the_top_of_bench() -> None:
    top = {path.stem for path in BENCH.glob("*.py") if path.name != "__init__.py"}
    assert top - {name.removeprefix("bench.") for name in ENTRY_POINTS} == set()


def test_no_bench_module_outside_the_shared_floors_passes_600_lines() -> None:
    long = {
        name: lines
        for name, path in MODULES.items()
        if name not in SHARED and (lines := len(path.read_text().splitlines())) > MOST_LINES
    }
    assert long == {}


def test_the_shared_floors_stand_apart_in_bench_floors() -> None:
    assert {path.name for path in BENCH.rglob("floor_*.py")} >= set(SHARED_FLOORS)
    assert all((BENCH / "floors" / name).is_file() for name in SHARED_FLOORS)


@pytest.mark.parametrize("name", SHARED_FLOORS)
def test_a_shared_floor_is_a_verbatim_copy_of_the_shared_instrument(name: str) -> None:
    shared = ROOT.parent / "shared" / "bench" / name
    if not shared.is_file():
        pytest.skip(f"{shared} is not beside this checkout")
    assert (BENCH / "floors" / name).read_bytes() == shared.read_bytes()


def _bench_knobs() -> set[str]:
    """The environment variables a bench (the floors included) reads by name."""
    read = re.compile(r"""(?:environ\.get|getenv|environ\[)\(?\s*["']([A-Z][A-Z0-9_]+)["']""")
    return {knob for path in MODULES.values() for knob in read.findall(path.read_text())}


def test_the_service_reads_no_knob_a_bench_reads() -> None:
    knobs = _bench_knobs()
    assert "PROFILE_MODE" in knobs  # the finder finds what the benches read
    service = ROOT / "src" / "lisan"
    named = {
        f"{path.relative_to(ROOT)}: {knob}"
        for path in service.rglob("*.py")
        for knob in knobs
        if re.search(rf"\b{knob}\b", path.read_text())
    }
    assert named == set()


def test_the_service_imports_no_bench_module() -> None:
    service = ROOT / "src" / "lisan"
    importing = {
        str(path.relative_to(ROOT))
        for path in service.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "bench")
        or (
            isinstance(node, ast.Import)
            and any(alias.name.split(".")[0] == "bench" for alias in node.names)
        )
    }
    assert importing == set()
