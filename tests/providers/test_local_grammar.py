"""The offline grammar is built from untrusted text (screen labels) and the user's terms: for any
of them it is a grammar pocketsphinx accepts, whose every word it can say."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lisan.core.locale import Locale
from lisan.providers.base import Expected, Screen
from lisan.providers.local.grammar import build, slots
from lisan.providers.local.phones import Pronouncer
from lisan.providers.local.recognizer import COMMAND, Recognizer

PRONOUNCER = Pronouncer()
RECOGNIZER = Recognizer()
LABELS = st.text(
    alphabet=st.sampled_from("abcXYZ 019-_'\"\\{}[]()|;=<>*+/é😀ሰላም\u200b\n"), max_size=24
)


def _tree(labels: list[str]) -> str:
    escaped = [
        label.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") for label in labels
    ]
    return "\n".join(f'[n{i}] Button "{text}" {{clickable}}' for i, text in enumerate(escaped))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    labels=st.lists(LABELS, max_size=6),
    terms=st.lists(LABELS, max_size=3),
    language=st.sampled_from(list(Locale)),
)
def test_any_screen_and_terms_make_a_grammar_the_decoder_accepts(
    labels: list[str], terms: list[str], language: Locale
) -> None:
    expected = Expected(terms, Screen("org.telegram.messenger", _tree(labels)), ["a.b.chat"])
    grammar = build(expected, language, PRONOUNCER)
    assert all(readings for readings in grammar.pronunciations.values())
    RECOGNIZER._add_words(grammar.pronunciations)
    RECOGNIZER._decoder.add_jsgf_string(COMMAND, grammar.jsgf)  # raises on a bad grammar


def test_a_hidden_screen_gives_no_labels_and_ungranted_terms_no_apps() -> None:
    expected = Expected(["Telebirr"], None, ["org.telegram.messenger"])
    filled = slots(expected, Locale.EN_US)
    assert filled.labels == ()
    assert filled.apps == (("telegram",), ("messenger",))
    assert ("telebirr",) in filled.names


def test_a_term_with_no_english_words_adds_no_empty_app_name() -> None:
    """ "ቻት" names a.b.chat (transliterated), but has no English grammar words."""
    grammar = build(Expected(["ቻት"], None, ["a.b.chat"]), Locale.EN_US, PRONOUNCER)
    assert "(  |" not in grammar.jsgf
    assert "| )" not in grammar.jsgf
    RECOGNIZER._decoder.add_jsgf_string(COMMAND, grammar.jsgf)
