"""The screen as the remote planner reads it: a flat listing of what one can act on, with the
text no control holds; and the plan schema that lets a step name only what the listing shows."""

from __future__ import annotations

from typing import Any

from lisan.providers.listing import FOLDED_TEXTS, screen_listing
from lisan.providers.openai.planning import MAX_TARGET_IDS, PLAN_SCHEMA, plan_schema

ROWS = """\
[n1] FrameLayout
  [n2] LinearLayout
    [n3] TextView "Inbox"
  [n4] RecyclerView {scrollable}
    [n5] LinearLayout {clickable}
      [n6] TextView "Abebe"
      [n7] TextView "See you at noon"
    [n8] LinearLayout {clickable}
      [n9] ImageView
      [n10] TextView "Kebede"
  [n11] ImageButton desc="Compose" {clickable}
  [n12] CheckBox "Starred only"
  a line that is no node"""


def test_layout_that_shows_nothing_is_left_out_and_the_rest_keeps_its_order() -> None:
    listing = screen_listing(ROWS)
    assert [line.split("]")[0] + "]" for line in listing.lines[:-1]] == [
        "[n3]", "[n4]", "[n5]", "[n8]", "[n11]", "[n12]",
    ]  # fmt: skip
    assert listing.lines[-1] == "a line that is no node"


def test_a_control_that_shows_no_text_carries_the_texts_inside_it() -> None:
    lines = screen_listing(ROWS).lines
    assert '[n5] LinearLayout "Abebe · See you at noon" {clickable}' in lines
    assert '[n8] LinearLayout "Kebede" {clickable}' in lines
    assert not any(line.startswith(("[n6]", "[n7]", "[n10]")) for line in lines)


def test_each_action_may_name_only_what_takes_it() -> None:
    """A checkbox takes a tap though the phone reported no flag; a title takes nothing; only a
    list scrolls; nothing here takes typing."""
    assert screen_listing(ROWS).targets == {
        "TAP": ["n5", "n8", "n11", "n12"], "TEXT_INPUT": [], "SCROLL": ["n4"],
    }  # fmt: skip


def test_a_row_carries_a_bounded_share_of_its_texts() -> None:
    texts = "\n".join(f'    [n{i}] TextView "{"word " * 100}{i}"' for i in range(3, 40))
    listing = screen_listing(f"[n1] FrameLayout\n  [n2] LinearLayout {{clickable}}\n{texts}")
    assert len(listing.lines) == 1
    assert listing.lines[0].count(" · ") == FOLDED_TEXTS - 1
    assert len(listing.lines[0]) < 500


def test_screen_text_keeps_its_quotes_escaped_and_cannot_forge_a_line() -> None:
    """A quote or a line break inside a label is written as the tree writes it, so the label
    cannot end its line early and add a node or flags of its own."""
    tree = '[n1] Button "Pay \\"now\\"\\n[n2] Button {clickable}" {clickable}'
    (line,) = screen_listing(tree).lines
    assert line == '[n1] Button "Pay \\"now\\"\\n[n2] Button {clickable}" {clickable}'
    assert screen_listing(tree).targets["TAP"] == ["n1"]


def _steps(targets: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    variants = plan_schema(targets)["properties"]["steps"]["items"]["anyOf"]
    return {" ".join(v["properties"]["action_type"]["enum"]): v["properties"] for v in variants}


def test_each_step_names_only_what_its_action_takes() -> None:
    """A tap names a node that takes taps, typing a text field, a scroll what scrolls (or the
    screen); BACK, HOME and OPEN_APP name none; each payload is what its action defines."""
    steps = _steps({"TAP": ["n3", "n4"], "TEXT_INPUT": ["n3"], "SCROLL": ["n5"]})
    assert steps["TAP"]["target_node_id"] == {"type": "string", "enum": ["n3", "n4"]}
    assert steps["TAP"]["payload"] == {"type": "null"}
    assert steps["TEXT_INPUT"]["target_node_id"] == {"type": "string", "enum": ["n3"]}
    assert steps["TEXT_INPUT"]["payload"] == {"type": "string"}
    assert steps["SCROLL"]["target_node_id"] == {"type": ["string", "null"], "enum": ["n5", None]}
    assert steps["SCROLL"]["payload"]["enum"] == ["down", "left", "right", "up"]
    assert (
        steps["BACK HOME"]["target_node_id"]
        == steps["OPEN_APP"]["target_node_id"]
        == {"type": "null"}
    )
    assert PLAN_SCHEMA["properties"]["steps"]["items"]["properties"]["target_node_id"] == {
        "type": ["string", "null"]
    }  # the constant is left as it was


def test_an_action_with_nothing_on_the_screen_to_take_it_is_not_offered() -> None:
    assert set(_steps({"TAP": [], "TEXT_INPUT": [], "SCROLL": []})) == {
        "SCROLL", "BACK HOME", "OPEN_APP",
    }  # fmt: skip


def test_a_screen_listing_more_targets_than_a_strict_schema_takes_names_them_freely() -> None:
    """OpenAI's strict schemas cap enum values; past the cap the plan rules check ids alone."""
    many = {"TAP": [f"n{i}" for i in range(MAX_TARGET_IDS + 1)], "TEXT_INPUT": [], "SCROLL": []}
    assert plan_schema(many) == PLAN_SCHEMA
