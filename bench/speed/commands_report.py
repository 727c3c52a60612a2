"""What `bench.commands` prints: each round as it ends, then a table per database and the
headline ratios."""

from __future__ import annotations

import os
import statistics
from collections import Counter

from bench.kit.figures import percentile
from bench.speed.commands_measures import RSS_EARLY_S, FloorRound, Load, Results, Round
from lisan.commands.stages import Stage


def _mib(kib: int) -> str:
    return f"{kib / 1024:.1f}"


def print_round(kind: str, number: int, result: Round) -> None:
    load, memory = result.load, result.memory
    statuses = Counter(status for status, _ in result.events)
    service = result.service_ms()
    print(
        f"  {kind} round {number}: {load.requests} requests, {load.requests_per_s:.1f} req/s, "
        f"p50 {load.p50_ms:.0f} ms, p99 {load.p99_ms:.0f} ms, "
        f"HTTP {dict(sorted(load.statuses.items()))}, socket errors: {load.socket_detail}",
        flush=True,
    )
    print(
        f"    RSS MiB: start {_mib(memory.samples[0][1])}, at {RSS_EARLY_S:.0f} s "
        f"{_mib(memory.early_kib)}, end {_mib(memory.end_kib)}, peak {_mib(memory.peak_kib)} "
        f"(VmHWM {_mib(memory.high_water_kib)}, {len(memory.samples)} samples)",
        flush=True,
    )
    stages = ", ".join(
        f"{stage} {statistics.median(values):.0f}/{percentile(values, 99):.0f}"
        for stage in (Stage.TRANSCRIPTION, Stage.PLANNING, Stage.VALIDATION, Stage.TOTAL)
        if (values := result.stage_ms(stage))
    )
    print(
        f"    recorded {len(result.events)} commands {dict(statuses)}; "
        f"server_timings p50/p99 ms: {stages}; "
        f"service (total - transcription - planning) p50/p99 ms: "
        f"{statistics.median(service) if service else float('nan'):.1f}/"
        f"{percentile(service, 99):.1f}",
        flush=True,
    )
    print(
        f"    server CPU {result.cpu_s:.1f} s for {len(result.events)} commands: "
        f"{result.cpu_ms_per_command:.1f} ms per command; the fake provider's "
        f"{result.provider_cpu_ms_per_command:.1f} ms per command; PostgreSQL's "
        f"{result.postgres_cpu_ms_per_command:.1f} ms per command; the machine's "
        f"{os.cpu_count()} cores {result.machine_busy:.0%} busy",
        flush=True,
    )


def print_floor_round(kind: str, number: int, floor: FloorRound, lisan: Round) -> None:
    load = floor.load
    print(
        f"  {kind} round {number} floor: {load.requests} requests, {load.requests_per_s:.1f} "
        f"req/s, p50 {load.p50_ms:.0f} ms, p99 {load.p99_ms:.0f} ms, "
        f"HTTP {dict(sorted(load.statuses.items()))}, socket errors: {load.socket_detail}",
        flush=True,
    )
    ratio = floor.cpu_ms_per_answer / lisan.cpu_ms_per_answer
    print(
        f"    floor CPU {floor.cpu_ms_per_answer:.2f} ms per command, Lisan "
        f"{lisan.cpu_ms_per_answer:.2f}: ratio {ratio:.2f}"
        f"; the machine's cores {floor.machine_busy:.0%} busy, load average "
        f"{os.getloadavg()[0]:.2f}",
        flush=True,
    )


def print_beside_round(
    kind: str, number: int, name: str, measured: FloorRound, lisan: Round
) -> None:
    load = measured.load
    print(
        f"  {kind} round {number} {name}: {load.requests} requests, "
        f"{load.requests_per_s:.1f} req/s, p50 {load.p50_ms:.0f} ms, p99 {load.p99_ms:.0f} ms, "
        f"HTTP {dict(sorted(load.statuses.items()))}; CPU {measured.cpu_ms_per_answer:.2f} ms "
        f"per command (this build's {lisan.cpu_ms_per_answer:.2f})",
        flush=True,
    )


def print_ratio(kind: str, results: Results) -> None:
    """The headline figure: floor CPU per command / Lisan's, median over alternating rounds."""
    if not results.floor:
        return
    lisan = statistics.median(r.cpu_ms_per_answer for r in results.lisan)
    floor = statistics.median(r.cpu_ms_per_answer for r in results.floor)
    lisan_5xx = sum(_server_errors(r.load) for r in results.lisan)
    floor_5xx = sum(_server_errors(r.load) for r in results.floor)
    print(
        f"  {kind}: server CPU per command, median of {len(results.lisan)} alternating rounds: "
        f"Lisan {lisan:.2f} ms, floor {floor:.2f} ms: ratio (floor / Lisan) {floor / lisan:.2f}; "
        f"commands/s Lisan {statistics.median(r.load.requests_per_s for r in results.lisan):.1f}, "
        f"floor {statistics.median(r.load.requests_per_s for r in results.floor):.1f}; "
        f"5xx Lisan {lisan_5xx}, floor {floor_5xx}"
    )
    for name, rounds in results.beside.items():
        other = statistics.median(r.cpu_ms_per_answer for r in rounds)
        print(
            f"  {kind}: beside it, {name}: {other:.2f} ms, ratio (floor / {name}) "
            f"{floor / other:.2f}; commands/s "
            f"{statistics.median(r.load.requests_per_s for r in rounds):.1f}; "
            f"5xx {sum(_server_errors(r.load) for r in rounds)}"
        )


def _server_errors(load: Load) -> int:
    return sum(count for status, count in load.statuses.items() if status >= 500)


def print_table(kind: str, rounds: list[Round], delay_s: float) -> None:
    provider_ms = 2 * delay_s * 1000
    one_call_ms = delay_s * 1000

    def row(name: str, cells: list[str]) -> None:
        print(f"  {name:44}" + "".join(f"{cell:>18}" for cell in cells))

    print(f"\n{kind}")
    row("", [f"round {n}" for n in range(1, len(rounds) + 1)])
    row("requests/s", [f"{r.load.requests_per_s:.1f}" for r in rounds])
    row("latency p50 / p99 ms", [f"{r.load.p50_ms:.0f} / {r.load.p99_ms:.0f}" for r in rounds])
    row(
        f"  minus provider (2 x {one_call_ms:.0f} ms) p50 / p99",
        [f"{r.load.p50_ms - provider_ms:.0f} / {r.load.p99_ms - provider_ms:.0f}" for r in rounds],
    )
    row(
        f"  minus {one_call_ms:.0f} ms (issue's wording) p50 / p99",
        [f"{r.load.p50_ms - one_call_ms:.0f} / {r.load.p99_ms - one_call_ms:.0f}" for r in rounds],
    )
    row(
        "service time p50 / p99 ms (in pipeline)",
        [
            f"{statistics.median(s):.1f} / {percentile(s, 99):.1f}"
            if (s := r.service_ms())
            else "-"
            for r in rounds
        ],
    )
    row(
        "RSS MiB at 5 s / end",
        [f"{_mib(r.memory.early_kib)} / {_mib(r.memory.end_kib)}" for r in rounds],
    )
    row("peak RSS MiB", [_mib(r.memory.peak_kib) for r in rounds])
    row("server CPU ms per command", [f"{r.cpu_ms_per_command:.1f}" for r in rounds])
    row("server CPU ms per answer (wrk's count)", [f"{r.cpu_ms_per_answer:.2f}" for r in rounds])
    row(
        "fake provider CPU ms per command",
        [f"{r.provider_cpu_ms_per_command:.1f}" for r in rounds],
    )
    row("PostgreSQL CPU ms per command", [f"{r.postgres_cpu_ms_per_command:.1f}" for r in rounds])
    row(f"machine busy ({os.cpu_count()} cores)", [f"{r.machine_busy:.0%}" for r in rounds])
    row("non-2xx / socket errors", [f"{r.load.non_2xx} / {r.load.socket_errors}" for r in rounds])
    if len(rounds) > 1:
        first, last = rounds[0].memory.peak_kib, rounds[-1].memory.peak_kib
        print(
            f"  peak RSS round {len(rounds)} vs round 1: {(last - first) / 1024:+.1f} MiB "
            f"({(last - first) / first:+.1%}) after "
            f"{sum(r.load.requests for r in rounds)} measured commands"
        )
