"""The metrics listener: `/metrics` on `LISAN_METRICS_HOST:LISAN_METRICS_PORT`, never the API's.

`lisan serve` starts it, in its own process, before the server processes:
- one process (`--workers 1`): the values live in that process's memory, and the library's
  default registry serves them with its process, platform and garbage-collector collectors;
- several (`--workers N`): prometheus-client's multiprocess mode. Every server process writes
  its values to files in `LISAN_METRICS_DIR` (by default a directory per metrics port under the
  system's temporary directory), emptied at start so nothing of an earlier run is counted; the
  listener adds them up. Files of processes that have exited are removed before each scrape,
  so a gauge summed over live processes (a queue depth) forgets a worker that died, while its
  counters stay counted. Process metrics (CPU, memory, open files) are the library's
  `ProcessCollector` read for every live process and summed.

Two `lisan serve` processes on one machine each need a port of their own, and so each has a
directory of its own.
"""

from __future__ import annotations

import atexit
import functools
import os
import re
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

from prometheus_client import REGISTRY, CollectorRegistry, ProcessCollector, start_http_server
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector

from lisan.core.settings import Settings

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_FILE_PID = re.compile(r"_(\d+)\.db$")


def metrics_dir(settings: Settings) -> Path:
    """The directory the processes write their values to: `LISAN_METRICS_DIR` (emptied at
    start), else a private one made now (mode 0700, a name nobody can guess or pre-create in
    the shared temp folder) and removed when the server exits."""
    if settings.metrics_dir is not None:
        shutil.rmtree(settings.metrics_dir, ignore_errors=True)
        settings.metrics_dir.mkdir(parents=True)
        return settings.metrics_dir
    private = Path(tempfile.mkdtemp(prefix="lisan-metrics-"))
    atexit.register(shutil.rmtree, private, ignore_errors=True)
    return private


def start(settings: Settings, workers: int) -> None:
    """Start the listener when `LISAN_METRICS_PORT` is set; before the server processes, whose
    values go to files when there are several."""
    if settings.metrics_port is None:
        return
    registry: CollectorRegistry = REGISTRY
    if workers > 1:
        path = metrics_dir(settings)
        os.environ[MULTIPROC_ENV] = str(path)  # the workers, spawned after this, inherit it
        registry = CollectorRegistry()
        registry.register(_LiveProcesses(path))
    start_http_server(settings.metrics_port, addr=settings.metrics_host, registry=registry)


class _LiveProcesses(Collector):
    """The multiprocess directory's values, once the files of exited processes are marked
    dead; and process metrics summed over this process and every live process that wrote."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._values = MultiProcessCollector(None, path=str(path))  # type: ignore[no-untyped-call]

    def collect(self) -> Iterable[Metric]:
        pids = self._writers()
        for pid in pids - _alive(pids):
            mark_process_dead(pid, str(self._path))  # type: ignore[no-untyped-call]
        yield from self._values.collect()  # type: ignore[no-untyped-call]
        yield from _summed(_alive(pids) | {os.getpid()})

    def _writers(self) -> set[int]:
        found = (_FILE_PID.search(name) for name in os.listdir(self._path))
        return {int(match.group(1)) for match in found if match}


def _alive(pids: set[int]) -> set[int]:
    return {pid for pid in pids if Path(f"/proc/{pid}").exists()}


def _summed(pids: set[int]) -> Iterator[Metric]:
    """The library's process metrics, summed over `pids` (start time: the earliest)."""
    totals: dict[str, float] = defaultdict(float)
    described: dict[str, Metric] = {}
    for pid in sorted(pids):
        collector = ProcessCollector(pid=functools.partial(int, pid), registry=None)
        for metric in collector.collect():
            described.setdefault(metric.name, metric)
            for sample in metric.samples:
                if sample.name.endswith("start_time_seconds"):  # the oldest process's
                    current = totals.get(sample.name)
                    totals[sample.name] = min(current or sample.value, sample.value)
                elif sample.name.endswith("max_fds"):  # a limit, per process
                    totals[sample.name] = max(totals[sample.name], sample.value)
                else:
                    totals[sample.name] += sample.value
    for metric in described.values():
        summed = Metric(metric.name, metric.documentation, metric.type)
        for sample in metric.samples:
            summed.add_sample(sample.name, {}, totals[sample.name])
        yield summed
