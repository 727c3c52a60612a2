"""The held-out set on real screens reads as its header says, and a plan is compared with a row
by what the phone acts on: a TAP by the node that takes it, a SCROLL by its direction unless the
row names the container, typed text without case or edge punctuation, and a row that expects
nothing is right only when refused. The captures themselves are not in the repository, so the
comparison is checked on a tree of the same shape."""

from __future__ import annotations

from collections import Counter

import pytest
from bench.kit.held_out import SET, Row, Step, load_rows, matches, parse_expected, result

from lisan.screen.viewtree import ViewTree

TREE = """[n1] FrameLayout
  [n2] RecyclerView {scrollable}
    [n3] LinearLayout {clickable}
      [n4] TextView "Download"
  [n5] EditText "Search" {editable}
  [n6] ScrollView {scrollable}
    [n7] Button "OK" {clickable}"""


def test_every_row_of_the_held_out_set_reads_with_a_language_a_kind_and_steps() -> None:
    rows = load_rows(SET)
    kinds = Counter((row.kind, row.language) for row in rows)
    assert len(rows) >= 150
    assert kinds[("command", "am-ET")] >= 25
    assert kinds[("instruction", "en-US")] >= 40
    assert any(row.refuse for row in rows)
    assert len({row.screen_id for row in rows}) >= 50


@pytest.mark.parametrize(
    ("written", "steps"),
    [
        ("TAP n12", (Step("TAP", "n12"),)),
        ("TEXT_INPUT n3 hello there ; TAP n4", (Step("TEXT_INPUT", "n3", "hello there"),
                                                Step("TAP", "n4"))),
        ("SCROLL down", (Step("SCROLL", None, "down"),)),
        ("SCROLL n7 up", (Step("SCROLL", "n7", "up"),)),
        ("BACK", (Step("BACK"),)),
        ("OPEN_APP Firefox", (Step("OPEN_APP", None, "Firefox"),)),
        ("-", ()),
    ],
)  # fmt: skip
def test_an_expected_plan_is_read_step_by_step(written: str, steps: tuple[Step, ...]) -> None:
    assert parse_expected(written) == steps


@pytest.mark.parametrize("written", ["TAP", "TAP n1 n2", "SWIPE down", "TEXT_INPUT n3"])
def test_a_step_the_set_does_not_define_is_an_error(written: str) -> None:
    with pytest.raises(ValueError, match="not a step"):
        parse_expected(written)


@pytest.mark.parametrize(
    ("planned", "expected", "same"),
    [
        ([Step("TAP", "n4")], "TAP n3", True),  # the text inside the row is the row's tap
        ([Step("TAP", "n3")], "TAP n3", True),
        ([Step("TAP", "n7")], "TAP n3", False),
        ([Step("SCROLL", "n2", None)], "SCROLL down", True),  # absent is down, any container
        ([Step("SCROLL", "n6", "down")], "SCROLL n2 down", False),
        ([Step("SCROLL", "n2", "up")], "SCROLL down", False),
        ([Step("TEXT_INPUT", "n5", "Addis Ababa.")], "TEXT_INPUT n5 addis ababa", True),
        ([Step("TEXT_INPUT", "n5", "Addis")], "TEXT_INPUT n5 addis ababa", False),
        ([Step("OPEN_APP", None, "org.mozilla.firefox")], "OPEN_APP Firefox", True),
        ([Step("OPEN_APP", None, "com.android.chrome")], "OPEN_APP Firefox", False),
        ([Step("BACK")], "BACK", True),
        ([Step("BACK"), Step("TAP", "n7")], "BACK", False),
    ],
)  # fmt: skip
def test_a_plan_matches_a_row_by_what_the_phone_acts_on(
    planned: list[Step], expected: str, same: bool
) -> None:
    assert matches(planned, parse_expected(expected), ViewTree(TREE)) is same


def test_a_row_that_expects_nothing_is_right_only_when_refused() -> None:
    row = Row("s", "en-US", "command", "Tap Bluetooth.", (), "no such row")
    assert result("REJECTED", False, refuse=row.refuse) == "right"
    assert result("ACCEPTED", True, refuse=row.refuse) == "wrong_acted"
    assert result("CONFIRMATION_REQUIRED", False, refuse=row.refuse) == "wrong_asked"


def test_a_row_that_expects_a_plan_counts_its_answer_by_status_and_steps() -> None:
    assert result("ACCEPTED", True, refuse=False) == "right"
    assert result("CONFIRMATION_REQUIRED", True, refuse=False) == "asked"
    assert result("REJECTED", False, refuse=False) == "refused"
    assert result("ACCEPTED", False, refuse=False) == "wrong_acted"
