"""The offline planner names a node by whole words of its label, read through core.text's fold;
anything less certain is a question (the plan's `needs_confirmation`), never an act."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz import fuzz

from lisan.core.locale import Locale
from lisan.providers.base import Screen
from lisan.providers.local import labels, planner
from lisan.screen.viewtree import ViewTree

CHAT = "org.telegram.messenger"


def _tapped(
    transcript: str, labels: list[str], language: Locale = Locale.EN_US
) -> tuple[str, bool]:
    """The node the plan taps and whether it asks first (nodes n1, n2, ... in order)."""
    tree = "\n".join(f'[n{i}] Button "{text}" {{clickable}}' for i, text in enumerate(labels, 1))
    plan = planner.plan(transcript, Screen(CHAT, tree), language, [CHAT])
    (step,) = plan["steps"]
    assert step["action_type"] == "TAP"
    return step["target_node_id"], plan["needs_confirmation"]


@pytest.mark.parametrize(
    ("transcript", "labels", "language"),
    [
        ("send it", ["Send"], Locale.EN_US),
        ("send it", ["Send message"], Locale.EN_US),
        ("send it", ["sendButton"], Locale.EN_US),  # an identifier's word pieces
        ("send it", ["btn_send"], Locale.EN_US),
        ("send it", ["S\u0435nd"], Locale.EN_US),  # a Cyrillic e: it reads "Send"
        ("send it", ["Se\u200bnd"], Locale.EN_US),  # a zero-width space inside
        ("tap family", ["Family group"], Locale.EN_US),
        ("tap wi fi", ["Wi-Fi"], Locale.EN_US),
        ("ሰርዝ", ["ሠርዝ"], Locale.AM_ET),  # a homophone spelling of the same word
        ("ላክ", ["ላክ"], Locale.AM_ET),
        ("ሰርዝ", ["Delete"], Locale.AM_ET),  # a phone's buttons may be in English
    ],
)
def test_a_whole_word_match_is_acted_on(
    transcript: str, labels: list[str], language: Locale
) -> None:
    assert _tapped(transcript, labels, language) == ("n1", False)


@pytest.mark.parametrize(
    ("transcript", "labels", "language"),
    [
        ("send it", ["Unsend"], Locale.EN_US),
        ("send it", ["Resend"], Locale.EN_US),
        ("send it", ["Sent"], Locale.EN_US),
        ("send it", ["Un\u3164send"], Locale.EN_US),  # a Hangul filler is no word boundary
        ("tap delete", ["Delegate"], Locale.EN_US),
        ("ሰርዝ", ["Delegate"], Locale.AM_ET),
    ],
)
def test_a_label_that_only_looks_like_what_was_said_is_asked(
    transcript: str, labels: list[str], language: Locale
) -> None:
    assert _tapped(transcript, labels, language) == ("n1", True)


def test_an_exact_label_beats_one_that_holds_the_words_among_others() -> None:
    assert _tapped("tap wi fi", ["Wi-Fi calling", "Wi-Fi"]) == ("n2", False)
    assert _tapped("tap archive", ["Unarchive", "Archive"]) == ("n2", False)
    assert _tapped("tap play", ["Playlists", "Play"]) == ("n2", False)


def test_two_different_labels_that_hold_the_words_equally_are_asked() -> None:
    target, asked = _tapped("tap network", ["Network & internet", "Mobile network"])
    assert asked
    assert target in {"n1", "n2"}


def test_the_same_label_twice_is_no_question() -> None:
    assert _tapped("tap send", ["Send", "SEND"]) == ("n1", False)


def test_dictation_sends_only_with_a_button_that_says_send() -> None:
    """ "send ..." types, then taps send: the question reads back the text, not the button, so
    a button only like "send" is no button to tap."""
    field = '[n1] EditText "Message" {editable}\n'
    for button, steps in (("Send", 2), ("Unsend", 0), ("Sent", 0)):
        tree = field + f'[n2] Button "{button}" {{clickable}}'
        plan = planner.plan("send see you", Screen(CHAT, tree), Locale.EN_US, [CHAT])
        assert len(plan["steps"]) == steps, button


def test_a_whole_word_match_beside_a_near_spelling_is_asked() -> None:
    """ "contact" is a word of "Add contact", but "Search contacts" differs by one letter: the
    decoder may have dropped the "s"."""
    assert _tapped("tap the contact", ["Search contacts", "Add contact"]) == ("n2", True)
    assert _tapped("tap contact", ["Contacts", "Contact"]) == ("n2", False)  # exact wins


WORDS = st.text(alphabet="abcdeklmnos\u12a0\u1230\u1208", min_size=1, max_size=9)
READINGS = st.lists(st.lists(WORDS, max_size=5).map(tuple), max_size=12)
FORMS = st.lists(st.lists(WORDS, min_size=1, max_size=4).map(tuple), min_size=1, max_size=4)


@given(FORMS, READINGS)
def test_a_screens_closeness_at_once_is_each_pairs_figure(
    forms: list[tuple[str, ...]], readings: list[tuple[str, ...]]
) -> None:
    """The whole screen's look-alike figures, computed in arrays, are the rule's per label:
    each word said against the label's closest word, on average, or the two run together;
    0 for a label of no words."""

    def pairwise(words: tuple[str, ...], reading: tuple[str, ...]) -> float:
        if not reading:
            return 0.0
        per_word = sum(max(fuzz.ratio(word, shown) for shown in reading) for word in words)
        return max(per_word / len(words), fuzz.ratio("".join(words), "".join(reading)))

    figures = labels._closeness(forms, readings).tolist()
    assert figures == [[pairwise(form, reading) for reading in readings] for form in forms]


def test_a_look_alike_among_thousands_of_labels_is_asked_never_acted_on() -> None:
    """A 64 KB screen of look-alike labels is searched whole: the closest is named and asked."""
    rows = "\n".join(f'  [n{i}] Button "Messxge preview {i}" {{clickable}}' for i in range(2000))
    tree = ViewTree(f"[root] FrameLayout\n{rows}")
    found = labels.find(tree, ["message preview 1999"], prefer="clickable")
    assert found is not None
    assert found.node.node_id == "n1999"
    assert not found.certain
