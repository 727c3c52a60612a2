"""The service's own view of the fleet's window (`bench.fleet`): its /metrics scraped before and
after, and their deltas set beside what the load tool counted, row by row."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench.speed.fleet_phones import ROUTE_ORDER, Recorder

# Counters that say something went wrong inside the service without a non-2xx (their deltas are
# printed too): Redis not answering in time, pool waits, lost telemetry, refused decodes.
TROUBLE = (
    "lisan_redis_fallbacks_total",
    "lisan_db_pool_waits_total",
    "lisan_db_faults_total",
    "lisan_telemetry_events_lost_total",
    "lisan_decoder_refusals_total",
)


@dataclass
class Scrape:
    http: Counter[tuple[str, str, str]]  # (route, method, status) -> requests
    commands: Counter[str]  # command status -> commands (summed over reasons)
    reasons: Counter[tuple[str, str]]  # (status, reason) -> commands
    trouble: Counter[str]  # a TROUBLE counter, with its labels -> value


async def scrape(metrics_port: int) -> Scrape:
    async with httpx.AsyncClient(timeout=10) as client:
        text = (await client.get(f"http://127.0.0.1:{metrics_port}/metrics")).text
    http: Counter[tuple[str, str, str]] = Counter()
    reasons: Counter[tuple[str, str]] = Counter()
    trouble: Counter[str] = Counter()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels, value = sample.labels, round(sample.value)
            if sample.name == "lisan_http_requests_total":
                http[(labels["route"], labels["method"], labels["status"])] += value
            elif sample.name == "lisan_commands_total":
                reasons[(labels["status"], labels["reason"])] += value
            elif sample.name in TROUBLE:
                named = ",".join(f"{k}={v}" for k, v in sorted(labels.items()))
                trouble[f"{sample.name}{{{named}}}" if named else sample.name] += value
    commands: Counter[str] = Counter()
    for (status, _), value in reasons.items():
        commands[status] += value
    return Scrape(http, commands, reasons, trouble)


def delta(after: Counter[Any], before: Counter[Any]) -> Counter[Any]:
    return Counter({key: after[key] - before[key] for key in after if after[key] != before[key]})


@dataclass
class Agreement:
    """One server: the load tool's counts and the metrics' deltas, row by row."""

    http: list[tuple[str, str, str, int, int]]  # route, method, status, tool, metrics
    commands: list[tuple[str, int, int]]  # status, tool, metrics
    reasons: dict[str, int]  # "STATUS/reason" -> metrics delta
    trouble: dict[str, int]  # a TROUBLE counter (with labels) -> its delta, when not 0

    @property
    def agrees(self) -> bool:
        rows = [(tool, seen) for *_, tool, seen in self.http]
        rows += [(tool, seen) for _, tool, seen in self.commands]
        return all(tool == seen for tool, seen in rows)


def compare(server: str, recorder: Recorder, before: Scrape, after: Scrape) -> Agreement:
    tool: Counter[tuple[str, str, str]] = Counter()
    for (name, (method, template)), tally in recorder.routes.items():
        if name == server:
            for status, count in tally.statuses.items():
                tool[(template, method, str(status))] += count
            for kind, count in tally.transport.items():
                tool[(template, method, f"({kind})")] += count
    seen = delta(after.http, before.http)
    order = {(template, method): n for n, (method, template) in enumerate(ROUTE_ORDER)}
    keys = sorted(tool.keys() | seen.keys(), key=lambda k: (order.get(k[:2], 99), k))
    http = [(*key, tool[key], seen[key]) for key in keys]
    counted = recorder.commands.get(server, Counter())
    commands_seen = delta(after.commands, before.commands)
    statuses = sorted(counted.keys() | commands_seen.keys())
    commands = [(status, counted[status], commands_seen[status]) for status in statuses]
    reasons = {
        f"{status}/{reason}": count
        for (status, reason), count in sorted(delta(after.reasons, before.reasons).items())
    }
    trouble = dict(sorted(delta(after.trouble, before.trouble).items()))
    return Agreement(http, commands, reasons, trouble)
