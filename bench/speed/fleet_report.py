"""The fleet's figures (`bench.fleet`): per route and server, per server's CPU, and the metrics'
agreement with the load tool, as JSON and as the tables printed."""

from __future__ import annotations

import os
import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Any

from bench.kit.figures import percentile
from bench.speed.fleet_metrics import Agreement
from bench.speed.fleet_phones import (
    NO_ANSWER,
    OFFLINE_WEIGHT,
    OPENAI,
    PAUSE_S,
    ROUTE_ORDER,
    WARM_UP_S,
    WEIGHTS,
    Recorder,
)
from bench.speed.fleet_servers import PROVIDER_DELAY_S, WORKERS


@dataclass
class Options:
    seconds: float
    phones: int
    seed: int
    offline: bool


@dataclass
class Window:
    recorder: Recorder
    seconds: float  # from the window's start to its last answer
    cpu_s: dict[str, float]  # per server
    provider_cpu_s: float
    postgres_cpu_s: float
    load_tool_cpu_s: float
    machine_busy: float
    agreements: dict[str, Agreement]


def route_rows(window: Window) -> list[dict[str, Any]]:
    order = {route: n for n, route in enumerate(ROUTE_ORDER)}
    rows = []
    for server, route in sorted(window.recorder.routes, key=lambda k: (k[0], order[k[1]])):
        tally = window.recorder.routes[(server, route)]
        latencies = tally.latencies_ms
        rows.append(
            {
                "server": server,
                "method": route[0],
                "route": route[1],
                "requests": tally.requests,
                "requests_per_s": tally.requests / window.seconds,
                "p50_ms": statistics.median(latencies) if latencies else None,
                "p99_ms": percentile(latencies, 99) if latencies else None,
                "non_2xx": {
                    str(status): count
                    for status, count in sorted(tally.statuses.items())
                    if not 200 <= status < 300
                },
                "transport_errors": dict(tally.transport),
            }
        )
    return rows


def report(options: Options, window: Window, logs: dict[str, list[str]]) -> dict[str, Any]:
    recorder = window.recorder
    servers = []
    for name, cpu_s in window.cpu_s.items():
        answered = sum(
            count
            for status, count in recorder.commands.get(name, Counter()).items()
            if status not in ("ERROR", NO_ANSWER)
        )
        requests = sum(t.requests for (server, _), t in recorder.routes.items() if server == name)
        servers.append(
            {
                "server": name,
                "processes": f"lisan serve --workers {WORKERS if name == OPENAI else 1}",
                "commands_answered": answered,
                "requests": requests,
                "cpu_s": cpu_s,
                "cpu_ms_per_command": cpu_s * 1000 / answered if answered else None,
                "cpu_ms_per_request": cpu_s * 1000 / requests if requests else None,
            }
        )
    agreements = {
        name: {
            "agree": agreement.agrees,
            "http": [
                {"route": r, "method": m, "status": s, "load_tool": t, "metrics": v}
                for r, m, s, t, v in agreement.http
            ],
            "commands": [
                {"status": s, "load_tool": t, "metrics": v} for s, t, v in agreement.commands
            ],
            "command_reasons": agreement.reasons,
            "trouble_counters": agreement.trouble,
        }
        for name, agreement in window.agreements.items()
    }
    return {
        "options": {
            "seconds": options.seconds,
            "phones": options.phones,
            "seed": options.seed,
            "offline": options.offline,
            "warm_up_s": WARM_UP_S,
            "pause_s": list(PAUSE_S),
            "provider_delay_s": PROVIDER_DELAY_S,
            "weights": WEIGHTS | ({"offline command": OFFLINE_WEIGHT} if options.offline else {}),
        },
        "cores": os.cpu_count(),
        "window_s": window.seconds,
        "routes": route_rows(window),
        "servers": servers,
        "provider_cpu_s": window.provider_cpu_s,
        "postgres_cpu_s": window.postgres_cpu_s,
        "load_tool_cpu_s": window.load_tool_cpu_s,
        "machine_busy": window.machine_busy,
        "metrics": agreements,
        "metrics_agree": all(a.agrees for a in window.agreements.values()),
        "server_log_warnings": logs,
    }


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def print_report(figures: dict[str, Any]) -> None:
    print(f"\nmeasured window: {figures['window_s']:.1f} s")
    print("\n| server | route | requests | req/s | p50 ms | p99 ms | errors |")
    print("|---|---|---:|---:|---:|---:|---|")
    for row in figures["routes"]:
        errors = [f"{status} x{count}" for status, count in row["non_2xx"].items()]
        errors += [f"{kind} x{count}" for kind, count in row["transport_errors"].items()]
        print(
            f"| {row['server']} | {row['method']} {row['route']} | {row['requests']} "
            f"| {row['requests_per_s']:.1f} | {_ms(row['p50_ms'])} | {_ms(row['p99_ms'])} "
            f"| {', '.join(errors) or 'none'} |"
        )
    window_s = figures["window_s"]
    print("\n| server | commands answered | requests | CPU s | CPU ms per command | per request |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in figures["servers"]:
        print(
            f"| {row['server']} ({row['processes']}) | {row['commands_answered']} "
            f"| {row['requests']} | {row['cpu_s']:.1f} | {_ms(row['cpu_ms_per_command'])} "
            f"| {_ms(row['cpu_ms_per_request'])} |"
        )
    print(
        f"\nalso over the window: fake provider CPU {figures['provider_cpu_s']:.1f} s, "
        f"PostgreSQL {figures['postgres_cpu_s']:.1f} s, this load tool "
        f"{figures['load_tool_cpu_s']:.1f} s ({figures['load_tool_cpu_s'] / window_s:.0%} of a "
        f"core); the machine's {figures['cores']} cores {figures['machine_busy']:.0%} busy"
    )
    for name, agreement in figures["metrics"].items():
        print(f"\n/metrics of the {name} server, deltas over the window, beside the load tool:")
        print("\n| route | method | status | load tool | /metrics | agree |")
        print("|---|---|---|---:|---:|---|")
        for row in agreement["http"]:
            same = "yes" if row["load_tool"] == row["metrics"] else "NO"
            print(
                f"| {row['route']} | {row['method']} | {row['status']} | {row['load_tool']} "
                f"| {row['metrics']} | {same} |"
            )
        print("\n| lisan_commands_total status | load tool | /metrics | agree |")
        print("|---|---:|---:|---|")
        for row in agreement["commands"]:
            same = "yes" if row["load_tool"] == row["metrics"] else "NO"
            print(f"| {row['status']} | {row['load_tool']} | {row['metrics']} | {same} |")
        reasons = ", ".join(f"{k} {v}" for k, v in agreement["command_reasons"].items())
        print(f"commands by status/reason (/metrics): {reasons or 'none'}")
        trouble = ", ".join(f"{k} {v}" for k, v in agreement["trouble_counters"].items())
        print(f"trouble counters' deltas (/metrics): {trouble or 'all 0'}")
        print(f"{name}: /metrics agree with the load tool: {'yes' if agreement['agree'] else 'NO'}")
    for name, lines in figures["server_log_warnings"].items():
        print(f"\n{name} server log, WARNING and worse (whole run): {'; '.join(lines) or 'none'}")
