"""After a SCROLL, a row view may show another row: a later step that names a node inside what
scrolled (a row of the list, or any node when the SCROLL moved the whole screen) is asked,
never run on the plan's word, and the question names it. The list itself, and what lies outside
it, stays where it was: a step there is not asked for this."""

from __future__ import annotations

from lisan.plans.question import confirmation_question
from lisan.screen.viewtree import ViewTree
from tests.fixtures.rules import plan, step, validated

LIST_SCREEN = ViewTree(
    """\
[root] FrameLayout
  [bar] Toolbar
    [search] ImageButton desc="Search" {clickable}
  [list] RecyclerView {scrollable}
    [row1] LinearLayout {clickable}
      [t1] TextView "Abebe Kebede"
    [row2] LinearLayout {clickable}
      [t2] TextView "Almaz Tesfaye"
  [field] EditText "Message" {editable}
"""
)


def scroll(target: str | None = "list") -> dict[str, object]:
    return step(action_type="SCROLL", target_node_id=target, payload="down")


def test_a_row_named_after_its_list_scrolled_is_asked_and_named() -> None:
    """A tap on a row of a list the plan scrolled first is asked, and the question names it."""
    safe = validated(plan(scroll(), step(target_node_id="row2")), tree=LIST_SCREEN)
    assert [s.asked for s in safe.steps] == [False, True]
    assert "Almaz Tesfaye" in confirmation_question(safe, LIST_SCREEN, "en-US")


def test_a_node_inside_a_row_of_the_scrolled_list_is_asked() -> None:
    """A text inside a row is inside the list too: the tap on it is asked."""
    safe = validated(plan(scroll("t1"), step(target_node_id="t1")), tree=LIST_SCREEN)
    assert safe.steps[0].target_node_id == "list"
    assert safe.steps[1].asked


def test_after_a_scroll_of_the_screen_every_named_node_is_asked() -> None:
    """A SCROLL with no target moves the screen: any later step on a node is asked."""
    typing = step(action_type="TEXT_INPUT", target_node_id="field", payload="hi")
    safe = validated(plan(scroll(None), typing), tree=LIST_SCREEN)
    assert safe.steps[1].asked


def test_what_lies_outside_the_scrolled_list_is_not_asked_for_it() -> None:
    """The toolbar's button, the field below the list and the list itself stay where they
    were: scrolled again, typed into or tapped, they are not asked for the scroll."""
    typing = step(action_type="TEXT_INPUT", target_node_id="field", payload="hi")
    raw = plan(scroll(), scroll(), typing, step(target_node_id="search"))
    safe = validated(raw, tree=LIST_SCREEN)
    assert [s.asked for s in safe.steps] == [False, False, False, False]


def test_a_row_named_before_the_scroll_is_not_asked_for_it() -> None:
    """Only steps after the SCROLL have lost their ground."""
    safe = validated(plan(step(target_node_id="t2"), scroll()), tree=LIST_SCREEN)
    assert not safe.steps[0].unread
