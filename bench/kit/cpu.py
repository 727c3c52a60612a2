"""The CPU time a bench reads from /proc: of a process tree, of PostgreSQL and of the whole
machine."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def process_tree(pid: int) -> list[int]:
    """`pid` and its descendants (uvicorn's worker processes under --workers)."""
    tree, index = [pid], 0
    while index < len(tree):
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{tree[index]}/task").iterdir():
                tree += [int(child) for child in (task / "children").read_text().split()]
        index += 1
    return tree


def _cpu_ticks(pid: int, *, reaped: bool = False) -> int:
    """User + system clock ticks of `pid` so far (/proc/PID/stat fields 14 and 15), and with
    `reaped` those of its children that have exited (16 and 17); 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return sum(int(value) for value in fields[11 : 15 if reaped else 13])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of `pid` and its descendants."""
    return sum(_cpu_ticks(member) for member in process_tree(pid)) / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, over all cores (/proc/stat)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    ticks = os.sysconf("SC_CLK_TCK")
    return (sum(values) - idle) / ticks, sum(values) / ticks


def postgres_cpu_seconds() -> float:
    """User + system CPU time so far of every PostgreSQL server process on the machine, and of
    the backends that have exited (the postmaster's reaped children)."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            if "(postgres)" in stat.read_text():
                ticks += _cpu_ticks(int(stat.parent.name), reaped=True)
    return ticks / os.sysconf("SC_CLK_TCK")
