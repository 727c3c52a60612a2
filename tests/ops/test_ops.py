"""What an operator loads as it is (ops/): every metric a dashboard panel or an alerting rule
names exists in the service's /metrics output, and the rules pass `promtool check rules` and
their unit tests."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from prometheus_client import REGISTRY, generate_latest

import lisan.app  # noqa: F401  (every module that defines a metric)
from tests.fixtures.ci import unavailable

OPS = Path(__file__).resolve().parents[2] / "ops"
DASHBOARD = OPS / "grafana-dashboard.json"
RULES = OPS / "alerts.yml"
RULE_TESTS = OPS / "alerts.test.yml"
# A name in an expression: a metric of ours, or the library's process metrics. `up` is
# Prometheus's own.
_NAME = re.compile(r"\b((?:lisan|process)_[a-z_]+)\b")
_SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_sum", "_count", "_created"),
    "gauge": ("",),
}


def exported_names() -> set[str]:
    """Every series name /metrics can carry: each family the registry serves (a labelled
    metric no request has touched yet included), with its type's suffixes."""
    exposition = generate_latest(REGISTRY).decode()
    names: set[str] = set()
    for family in REGISTRY.collect():
        assert f"# TYPE {family.name}" in exposition
        names |= {family.name + suffix for suffix in _SUFFIXES.get(family.type, ("",))}
    return names


def dashboard_expressions() -> list[str]:
    panels = json.loads(DASHBOARD.read_text())["panels"]
    return [target["expr"] for panel in panels for target in panel["targets"]]


def rule_expressions() -> list[str]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [rule["expr"] for group in groups for rule in group["rules"]]


@pytest.mark.parametrize("source", ["dashboard", "rules"])
def test_every_metric_named_exists(source: str) -> None:
    expressions = dashboard_expressions() if source == "dashboard" else rule_expressions()
    named = {name for expr in expressions for name in _NAME.findall(expr)}
    assert len(named) >= 10, named
    missing = named - exported_names()
    assert not missing, f"{source} names metrics /metrics does not have: {sorted(missing)}"


def test_the_questions_an_operator_asks_have_an_alert() -> None:
    alerts = {
        rule["alert"]
        for group in yaml.safe_load(RULES.read_text())["groups"]
        for rule in group["rules"]
    }
    assert {
        "LisanDown",
        "LisanCommandsFailing",
        "LisanProviderFailing",
        "LisanProviderSlow",
        "LisanDeletionStuck",
        "LisanDeletionFailed",
        "LisanTelemetryLost",
    } <= alerts


def test_promtool_accepts_the_rules() -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        unavailable("promtool is not installed (Debian: apt-get install prometheus)")
    assert promtool is not None
    checked = subprocess.run(
        [promtool, "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "SUCCESS" in checked.stdout


def test_every_alert_fires_and_stays_quiet_as_its_unit_tests_say() -> None:
    """Each alerting rule has promtool unit tests (ops/alerts.test.yml) that fire it and keep
    it quiet, and they pass; every alert of the rules has both."""
    promtool = shutil.which("promtool")
    if promtool is None:
        unavailable("promtool is not installed (Debian: apt-get install prometheus)")
    assert promtool is not None
    tests = yaml.safe_load(RULE_TESTS.read_text())["tests"]
    cases = [case for test in tests for case in test["alert_rule_test"]]
    fired = {case["alertname"] for case in cases if case["exp_alerts"]}
    quiet = {case["alertname"] for case in cases if not case["exp_alerts"]}
    alerts = {
        rule["alert"] for group in yaml.safe_load(RULES.read_text())["groups"]
        for rule in group["rules"]
    }  # fmt: skip
    assert fired == alerts
    assert quiet == alerts
    tested = subprocess.run(
        [promtool, "test", "rules", str(RULE_TESTS)], capture_output=True, text=True, timeout=60
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "SUCCESS" in tested.stdout
