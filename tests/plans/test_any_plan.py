"""Whatever the planner returns, `validate_plan` answers a SafePlan that keeps every rule, or
PlanRejected with a known reason, and nothing else; and the grants it needs are the ones
`required_packages` names."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from lisan.plans.question import confirmation_question, step_question
from lisan.plans.rules import MAX_ASKED_STEPS, MAX_STEPS, required_packages, validate_plan
from lisan.plans.safe import PlanRejected, Refusal, SafePlan, SafeStep
from lisan.plans.words import names_no_act, reads_destructive
from lisan.screen.actions import ACTION_TYPES
from lisan.screen.nodes import TAKES_CLICKS
from lisan.screen.packages import is_package_name
from lisan.screen.viewtree import ViewTree
from tests.fixtures.committing import CommittingTap, committing_taps
from tests.fixtures.rules import APP, GRANTED, NODES, OTHER_APP, UNGRANTED, Json

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


# Screens the property tests draw from: the usual one, one where a clickable row holds a
# destructive label only in a child, one where an injected line duplicates a target id, one with
# a disabled button, and none at all.
SCREENS = [
    NODES,
    ViewTree(
        '[n1] FrameLayout\n  [n2] LinearLayout {clickable}\n    [n3] TextView "Delete account"\n'
        '  [n4] TextView "Chats" {clickable}'
    ),
    ViewTree('[n9] TextView "Cancel"\n[n1] View\n  [n9] Button "Delete everything" {clickable}'),
    ViewTree('[n2] Button "Chats" {clickable, disabled}\n[n3] EditText "Message" {editable}'),
    ViewTree(""),
    # A dialog whose buttons say only "OK" and "Cancel": the message says what OK does.
    ViewTree(
        "[n1] FrameLayout\n  [n2] LinearLayout\n    [n3] TextView \"Remove 12 photos? This can't "
        'be undone."\n    [n4] LinearLayout\n      [n5] Button "Cancel" {clickable}\n'
        '      [n6] Button "OK" {clickable}\n  [n7] TextView "Photos"\n  [n8] TextView "Albums"\n'
        '  [n9] TextView "Shared"\n  [n10] TextView "Settings"\n  [n11] TextView "Help"'
    ),
    # An icon with no label inside a clickable row: the click lands on the row.
    ViewTree(
        "[n1] RecyclerView {scrollable}\n  [n2] LinearLayout {clickable}\n    [n3] ImageView\n"
        '    [n4] TextView desc="btn_remove_item"\n  [n9] EditText "Search" {editable}'
    ),
    # A clickable icon with no label, alone among other controls: nothing says what it does.
    ViewTree(
        "[n1] FrameLayout\n  [n2] LinearLayout\n    [n3] ImageButton {clickable}\n"
        '    [n4] Button "Chats" {clickable}\n  [n9] Button "Delete everything" {clickable}'
    ),
    # A dialog whose checkbox sits beside its buttons: the checkbox's label is no message.
    ViewTree(
        '[n1] FrameLayout\n  [n2] LinearLayout\n    [n3] TextView "Erase all files?"\n'
        '    [n4] LinearLayout\n      [n5] CheckBox "Don\'t ask again" {clickable}\n'
        '      [n6] Button "Sounds good" {clickable}\n  [n7] TextView "Files"\n'
        '  [n8] TextView "Recent"\n  [n9] TextView "Shared"\n  [n10] TextView "Starred"\n'
        '  [n11] TextView "Help"'
    ),
]


NODE_IDS = sorted({"n1", "n2", "n3", "n4", "n6", "n9", *NODES})


SCREEN_APPS = [APP, OTHER_APP, UNGRANTED, ""]


def mostly(valid: st.SearchStrategy[Json], odds: int = 8) -> st.SearchStrategy[Json]:
    """Usually a valid value, about one time in `odds` arbitrary JSON. (The garbage band is
    mid-range: Hypothesis favours the ends of a range, and shrinks towards the low one.)"""
    band = range(5000, 5000 + 10000 // odds)
    return st.integers(0, 10000).flatmap(lambda roll: JSON if roll in band else valid)


@st.composite
def sometimes_missing(draw: st.DrawFn, fields: dict[str, st.SearchStrategy[Json]]) -> Json:
    """An object of `fields`, now and then without one of them."""
    drawn = {key: draw(strategy) for key, strategy in fields.items()}
    if draw(st.integers(0, 3000)) in range(1500, 1600):
        drawn.pop(draw(st.sampled_from(sorted(drawn))))
    return drawn


STEP = sometimes_missing(
    {
        # Arbitrary JSON there is almost always a wrong action type or an unknown node.
        "action_type": mostly(st.sampled_from(sorted(ACTION_TYPES)), 40),
        "target_node_id": mostly(st.sampled_from([*NODE_IDS, None]), 40),
        "payload": mostly(
            st.sampled_from(["hi", "down", OTHER_APP, APP, UNGRANTED, "Telegram", "Chat", None]),
            60,
        ),
        "is_destructive": mostly(st.booleans(), 60),
        "step_id": JSON,
    }
)


PLAN = sometimes_missing(
    {
        "package_name": mostly(st.sampled_from([APP, OTHER_APP, UNGRANTED, ""]), 30),
        "steps": mostly(st.lists(mostly(STEP, 60), min_size=1, max_size=MAX_STEPS + 2), 30),
        "needs_confirmation": mostly(st.booleans(), 30),
        "speech_response_text": mostly(st.none() | st.text(max_size=8), 30),
        "extra": JSON,
    }
)


GRANTS = st.sets(st.sampled_from([APP, OTHER_APP, UNGRANTED]))


@settings(max_examples=600, deadline=None)
@given(
    raw=mostly(PLAN),
    granted=GRANTS,
    tree=st.sampled_from(SCREENS),
    current=st.sampled_from(SCREEN_APPS),
)
def test_any_plan_is_a_safe_plan_that_keeps_the_rules_or_rejected(
    raw: Json, granted: set[str], tree: ViewTree, current: str
) -> None:
    """Whatever the planner returns, the answer is PlanRejected with a known reason or a
    SafePlan that keeps every rule, and the raw plan is left as it was."""
    before = copy.deepcopy(raw)
    safe = _outcome(raw, granted, tree, current)
    assert raw == before
    if isinstance(safe, str):
        assert isinstance(safe, Refusal)
        return
    assert isinstance(safe, SafePlan)
    only_home = all(s.action_type == "HOME" and s.target_node_id is None for s in safe.steps)
    assert safe.package_name in granted or (only_home and safe.package_name == current)
    assert 1 <= len(safe.steps) <= MAX_STEPS
    assert isinstance(safe.planner_asked_confirmation, bool)
    assert sum(step.asked for step in safe.steps) <= MAX_ASKED_STEPS
    _assert_what_is_accepted_was_read(safe)
    _assert_the_question_names_every_asked_step(safe, tree)
    left_the_screen = app_unknown = navigated = False
    scrolled: set[str | None] = set()  # what each SCROLL moved: a list's id, or None (the screen)
    for raw_step, safe_step in zip(raw["steps"], safe.steps, strict=True):
        if navigated and safe_step.target_node_id is not None:
            assert safe_step.unread
            assert safe_step.asked
        if safe_step.target_node_id is not None and scrolled:
            branch = tree.branch(safe_step.target_node_id)
            assert branch is not None
            around = {a.node.node_id for a in tree.ancestors(branch) if a.node is not None}
            if None in scrolled or around & scrolled:
                assert safe_step.asked  # a row of a scrolled list may show another row now
        if safe_step.action_type == "SCROLL":
            scrolled.add(safe_step.target_node_id)
        if safe_step.action_type == "TEXT_INPUT" and safe_step.target_node_id is not None:
            branch = tree.branch(safe_step.target_node_id)
            assert branch is not None
            fields = [b for b in (branch, *tree.ancestors(branch)) if b.node is not None]
            assert any("editable" in b.node.flags for b in fields if b.node is not None)
        navigated = navigated or (
            safe_step.action_type == "TAP"
            and "editable" not in tree[str(safe_step.target_node_id)].flags
        )
        if safe_step.action_type == "TAP":
            assert safe_step.target_node_id is not None  # a tap on no node is never sent
        if safe_step.action_type == "SCROLL" and safe_step.target_node_id is not None:
            assert "scrollable" in tree[safe_step.target_node_id].flags  # never a row's swipe
        assert safe_step.action_type in ACTION_TYPES
        assert isinstance(safe_step.is_destructive, bool)
        assert safe_step.is_destructive or not raw_step["is_destructive"]  # never downgraded
        assert safe_step.payload is None or isinstance(safe_step.payload, str)
        if safe_step.action_type == "TEXT_INPUT":
            assert isinstance(safe_step.payload, str)
        if safe_step.action_type == "OPEN_APP" and is_package_name(safe_step.payload):
            assert safe_step.payload == safe.package_name
        if safe_step.target_node_id is not None:
            # A plan that reaches the phone targets a node only of a granted app's screen, on
            # the screen the phone sent, and only a node named once.
            assert current in granted
            assert current == safe.package_name
            assert not left_the_screen
            assert safe_step.target_node_id in tree
            node = tree[safe_step.target_node_id]
            texts = [node.text, node.desc, *tree.descendant_texts(node.node_id)]
            if any(reads_destructive(text) for text in texts):
                assert safe_step.is_destructive  # so never unconfirmed
            if safe_step.action_type in {"TAP", "TEXT_INPUT"}:
                assert "disabled" not in node.flags
            if safe_step.action_type == "TAP":
                _assert_a_tap_reads_what_it_clicks(safe_step, tree)
        elif safe_step.action_type not in {"HOME", "OPEN_APP"}:
            assert left_the_screen or current == safe.package_name
            if safe_step.action_type in {"TEXT_INPUT", "SCROLL"}:
                assert not app_unknown  # nothing typed or scrolled blind
        if safe_step.action_type not in {"TAP", "TEXT_INPUT", "SCROLL"}:
            assert safe_step.target_node_id is None  # only what the action type defines
        if safe_step.action_type not in {"TEXT_INPUT", "OPEN_APP", "SCROLL"}:
            assert safe_step.payload is None
        left_the_screen = left_the_screen or safe_step.action_type in {"HOME", "OPEN_APP", "BACK"}
        if safe_step.action_type in {"HOME", "OPEN_APP"}:
            app_unknown = False
        elif safe_step.action_type == "BACK" or (
            safe_step.action_type == "TAP"
            and (  # a TAP may follow a link unless it focuses a text field
                safe_step.target_node_id is None
                or "editable" not in tree[safe_step.target_node_id].flags
            )
        ):
            app_unknown = True


PROCEED = {"en-US": "? Say yes to go ahead.", "am-ET": "? ለመቀጠል «አዎ» ይበሉ።"}


def _assert_what_is_accepted_was_read(safe: SafePlan) -> None:
    """A plan ACCEPTED without a question (the planner did not ask, the transcriber was
    confident) holds no step the rules could not read and none they read as consequential."""
    if not safe.requires_confirmation(transcriber_confident=True):
        assert not any(step.unread or step.is_destructive for step in safe.steps)


def _assert_the_question_names_every_asked_step(safe: SafePlan, tree: ViewTree) -> None:
    """Every CONFIRMATION_REQUIRED question names each step the service asks about, in order."""
    for language in ("en-US", "am-ET"):
        text = confirmation_question(safe, tree, language)
        position = 0
        for at, asked in enumerate(safe.steps):
            if not asked.asked:
                continue
            before = safe.steps[:at]  # what it typed before: an amount is named with the act
            alone = step_question(asked, tree, safe.package_name, language, before=before)
            clause = alone.removesuffix(PROCEED[language])
            found = text.lower().find(clause.lower(), position)  # "…, then tap “x”"
            assert found >= 0, (clause, text)
            position = found + len(clause)


def _assert_a_tap_reads_what_it_clicks(tap: SafeStep, tree: ViewTree) -> None:
    """The node that receives the click (the target or its nearest clickable ancestor) exists,
    is enabled; when its subtree reads destructive, the step asks first; and when its subtree
    names no act (no word, or only assent) and it is no text field, the step is asked or names
    the message around it that gave it its meaning, a text on the screen outside that subtree."""
    target = tree.branch(str(tap.target_node_id))
    assert target is not None
    clicked = next(
        (b for b in (target, *tree.ancestors(target)) if b.node and b.node.flags & TAKES_CLICKS),
        None,
    )
    assert clicked is not None
    assert clicked.node is not None
    assert "disabled" not in clicked.node.flags
    subtree = tree.texts(clicked)
    if any(reads_destructive(text) for text in subtree):
        assert tap.is_destructive
    elif "editable" not in clicked.node.flags and all(map(names_no_act, subtree)):
        assert tap.asked or tap.context is not None
    if tap.context is not None:
        assert tap.context in tree.all_texts()
        assert tap.context not in subtree


@settings(max_examples=300, deadline=None)
@given(raw=mostly(PLAN), granted=GRANTS, current=st.sampled_from(SCREEN_APPS))
def test_a_plan_targeting_a_duplicated_id_is_never_accepted(
    raw: Json, granted: set[str], current: str
) -> None:
    """Whatever the plan, no accepted step targets an id that two node lines carry."""
    duplicated = SCREENS[2]
    outcome = _outcome(raw, granted, duplicated, current)
    if isinstance(outcome, SafePlan):
        assert all(step.target_node_id != "n9" for step in outcome.steps)


@settings(max_examples=400, deadline=None)
@given(
    raw=mostly(PLAN),
    granted=GRANTS,
    tree=st.sampled_from(SCREENS),
    current=st.sampled_from(SCREEN_APPS),
)
def test_the_grant_check_reads_only_the_required_packages(
    raw: Json, granted: set[str], tree: ViewTree, current: str
) -> None:
    """The grants of `required_packages(raw, current)` decide as all the grants would: the
    pipeline reads only those."""
    required = required_packages(raw, current)
    assert all(is_package_name(package) for package in required)
    assert _outcome(raw, granted, tree, current) == _outcome(raw, granted & required, tree, current)


@settings(max_examples=300, deadline=None)
@given(committing=committing_taps(), planner_says=st.booleans())
def test_a_committing_tap_on_a_screen_that_commits_is_never_accepted_unasked(
    committing: CommittingTap, planner_says: bool
) -> None:
    """On a screen whose heading or dialog message commits money, data or messages, an assent,
    an unlabelled control or a list row is asked, whatever the planner flagged, and the
    question quotes a text of the screen outside the tapped control."""
    raw = {
        "package_name": APP,
        "steps": [
            {"action_type": "TAP", "target_node_id": committing.target, "payload": None,
             "is_destructive": planner_says}
        ],
    }  # fmt: skip
    safe = validate_plan(raw, committing.tree, GRANTED, current_package=APP)
    assert safe.steps[0].asked, committing.summary
    assert safe.requires_confirmation(transcriber_confident=True)
    _assert_a_tap_reads_what_it_clicks(safe.steps[0], committing.tree)


def _outcome(raw: Json, granted: set[str], tree: ViewTree, current: str) -> SafePlan | str:
    try:
        return validate_plan(raw, tree, granted, current_package=current)
    except PlanRejected as rejected:
        return rejected.reason
