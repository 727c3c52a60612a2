"""The held-out command set on real app screens (`bench/data/real_commands.tsv`): its rows, and
how a plan is compared with a row's expected steps.

Shared by `bench.real_commands` (the rules alone, as local first runs them) and
`bench.planner_interop --set real` (the real model behind them), so both count alike. The
set's columns and labelling rule are in the file's own header.

A plan's steps are compared with the expected ones in order, each by what the phone acts on:
- a TAP by the node that takes the tap (the target when it is clickable or editable, else its
  nearest such ancestor): the text inside a row and the row are one tap, as in real_taps.tsv;
- a TEXT_INPUT by its field and its text, read without case, edge punctuation or extra spaces;
- a SCROLL by its direction (absent is down), and by its container only when the row names one;
- an OPEN_APP by the app: the expected name, without case or spaces, inside the payload (a
  package name or a spoken one);
- BACK and HOME by their type.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.kit.captures import Screen
from lisan.screen.viewtree import ViewTree

SET = Path(__file__).resolve().parents[1] / "data" / "real_commands.tsv"
KINDS = ("command", "instruction")
LANGUAGES = ("en-US", "am-ET")
RESULTS = ("right", "asked", "to_model", "refused", "wrong_acted", "wrong_asked")
PLANNED = ("ACCEPTED", "CONFIRMATION_REQUIRED")
TARGETED = {"TAP", "TEXT_INPUT"}


@dataclass(frozen=True, slots=True)
class Step:
    """A step as compared: its type, the node it names and its payload (None where none)."""

    action_type: str
    target: str | None = None
    payload: str | None = None


@dataclass(frozen=True, slots=True)
class Row:
    screen_id: str
    language: str
    kind: str
    said: str
    expected: tuple[Step, ...]  # empty: nothing on the screen does it, it must be refused
    note: str

    @property
    def refuse(self) -> bool:
        return not self.expected


def parse_expected(text: str) -> tuple[Step, ...]:
    """`TAP n12 ; TEXT_INPUT n3 hello there ; SCROLL [n7] down ; BACK ; HOME ; OPEN_APP name`,
    or `-` for none. Raises ValueError on anything else."""
    if text.strip() == "-":
        return ()
    steps = []
    for part in text.split(" ; "):
        action, _, rest = part.strip().partition(" ")
        if action == "TAP" and rest and " " not in rest:
            steps.append(Step(action, rest))
        elif action == "TEXT_INPUT" and " " in rest:
            target, _, payload = rest.partition(" ")
            steps.append(Step(action, target, payload))
        elif action == "SCROLL" and len(rest.split()) in (1, 2):
            words = rest.split()
            steps.append(Step(action, words[0] if len(words) == 2 else None, words[-1]))
        elif action in ("BACK", "HOME") and not rest:
            steps.append(Step(action))
        elif action == "OPEN_APP" and rest:
            steps.append(Step(action, None, rest))
        else:
            raise ValueError(f"not a step: {part!r}")
    return tuple(steps)


def load_rows(path: Path = SET) -> list[Row]:
    """The set's rows: tab-separated, a header line, `#` lines are comments."""
    rows = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 6 or fields[1] not in LANGUAGES or fields[2] not in KINDS:
            raise SystemExit(f"{path}:{number}: expected 6 fields, a language and a kind")
        try:
            expected = parse_expected(fields[4])
        except ValueError as error:
            raise SystemExit(f"{path}:{number}: {error}") from None
        rows.append(Row(fields[0], fields[1], fields[2], fields[3], expected, fields[5]))
    return rows


def check_rows(rows: Sequence[Row], screens: dict[str, Screen]) -> list[str]:
    """Every row's screen exists in the data, and every node its expected steps name."""
    problems = []
    for row in rows:
        screen = screens.get(row.screen_id)
        if screen is None:
            problems.append(f"{row.screen_id}: no such screen in the data")
            continue
        tree = ViewTree(screen.summary)
        for step in row.expected:
            if step.target is not None and tree.branch(step.target) is None:
                problems.append(f"{row.screen_id} {step.target}: no such node ({row.said!r})")
    return problems


def acted_on(action_type: str, target: str | None, tree: ViewTree) -> str | None:
    """The node a TAP or TEXT_INPUT on `target` acts on: the node that takes the tap (or the
    field), else the target itself; other steps' targets as they are."""
    if target is None or action_type not in TARGETED:
        return target
    branch = tree.branch(target)
    receiver = tree.receiver(branch) if branch is not None else None
    return receiver.node.node_id if receiver is not None and receiver.node is not None else target


def _text(value: str | None) -> str:
    words = (word.strip("".join(_edge_punctuation(word))) for word in (value or "").split())
    return " ".join(word for word in words if word).casefold()


def _edge_punctuation(word: str) -> set[str]:
    return {char for char in word if unicodedata.category(char).startswith("P")}


def _names(payload: str | None, app: str | None) -> bool:
    def squeeze(value: str | None) -> str:
        return "".join((value or "").casefold().split())

    return bool(squeeze(app)) and squeeze(app) in squeeze(payload)


def matches(steps: Sequence[Step], expected: Sequence[Step], tree: ViewTree) -> bool:
    """Whether a plan's `steps` are the expected ones, compared as the module says."""
    if len(steps) != len(expected):
        return False
    for step, want in zip(steps, expected, strict=True):
        if step.action_type != want.action_type:
            return False
        kind = step.action_type
        if kind in TARGETED and acted_on(kind, step.target, tree) != want.target:
            return False
        if kind == "TEXT_INPUT" and _text(step.payload) != _text(want.payload):
            return False
        if kind == "SCROLL" and (
            (step.payload or "down") != want.payload
            or (want.target is not None and step.target != want.target)
        ):
            return False
        if kind == "OPEN_APP" and not _names(step.payload, want.payload):
            return False
    return True


def result(status: str | None, matched: bool, *, refuse: bool) -> str:
    """A planned answer's result: right (acted on, or refused when nothing does it), asked (the
    expected steps behind a question), refused (no plan when one was expected), wrong_acted or
    wrong_asked (any other plan). `to_model` is the caller's: the rules declined."""
    if status not in PLANNED:
        return "right" if refuse else "refused"
    if matched and not refuse:
        return "right" if status == "ACCEPTED" else "asked"
    return "wrong_acted" if status == "ACCEPTED" else "wrong_asked"
