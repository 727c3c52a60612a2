"""Does what the user said name what the plan does? A remote planner reads a transcript that
may be wrong and a screen that may lie to it; where the service cannot see, in the transcript's
own words, the node a TAP acts on or the action another step takes, the step is asked, never
run on the planner's word. A small model that did not understand a command went BACK, scrolled
or typed a word of its own (measured on real screens: 35 of 153 commands acted on so).

A step other than a TAP is named when the transcript says it: BACK, HOME and SCROLL by a word
of `ACTION_WORDS` ("go back", "ሸብልል"), a SCROLL also by a direction said alone ("down"),
TEXT_INPUT when every word it types was said, and OPEN_APP when a word of the app's name was
said; each word read as a TAP's are below.

A TAP is named when the transcript shares a word with what its node shows (the node that
receives the click and everything under it, or for a control that shows nothing the message
the rules read it by, `SafeStep.context`): the same word, a near spelling of a long word
("contact" for "Contacts", by rapidfuzz's ratio), or for Ge'ez the same consonant skeleton
under an inflection ("አበበን" names "አበበ"). Words that name nothing on their own ("the", "to")
never make a match, nor do the words a command is said with ("tap", "go") unless they are all
the label says. A tap on a text field is never asked for this: it only focuses the field.

What a node shows is read from its start, its own label first, up to `MAX_SHOWN_CHARS`
characters (and as much of the message): a person names a control by its label, not by the
page of text a clickable container may hold, and a tap named only past that is asked. So the
check costs the same on any screen: the transcript's words are indexed once (the same words
by a set, near spellings by rapidfuzz over the long words only, skeletons by substring search
over each side's skeletons joined), never compared word by word with a whole screen.

What this cannot see: a transcript that is wrong and names the wrong node consistently ("send"
heard as "settings", and "Settings" tapped). That is the transcriber's confidence to judge.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable

import numpy
from rapidfuzz import fuzz, process

from lisan.core.text import (
    COMMAND_WORDS,
    FUNCTION_WORDS,
    consonants,
    ethiopic_words,
    latin_words,
)
from lisan.plans.consequence import is_field
from lisan.plans.safe import SafePlan, SafeStep
from lisan.screen.viewtree import ViewTree

NEAR_SPELLING = 80  # rapidfuzz ratio from which two long words are one ("contacts", "contact")
NEAR_FROM_CHARS = 4  # shorter words must be equal ("cat" is not "chat")
SKELETON_FROM_CHARS = 2  # a Ge'ez skeleton of one consonant is in too many words to name one
VERB_FROM_CHARS = 3  # an Amharic verb said under an inflection, by its consonants
MAX_SHOWN_CHARS = 2_000  # what a node shows is read up to here (see the module's docstring)


# The words that say a step without a node, said as they are: a near spelling is not enough
# ("turn" is a near spelling of "return", "አጋራ" has the consonants of "ግራ"), except that an
# Amharic verb of three consonants or more says it under an inflection ("ተመለሱ").
ACTION_WORDS: dict[str, frozenset[str]] = {
    "BACK": frozenset({"back", "return", "previous", "ተመለስ", "ኋላ"}),
    "HOME": frozenset({"home", "መነሻ"}),
    "SCROLL": frozenset({"scroll", "swipe", "ሸብልል"}),
}
# A direction said alone, or nearly ("down", "more please", "ወደ ላይ"), says a scroll too; in a
# longer sentence it is a word of something else ("how much space does this app take up").
DIRECTION_WORDS = frozenset(
    {"up", "down", "left", "right", "more", "top", "bottom", "ላይ", "ታች", "ግራ", "ቀኝ"}
)
BARE_WORDS = 3


def ask_unnamed_steps(plan: SafePlan, tree: ViewTree, transcript: str) -> SafePlan:
    """`plan` with each step the transcript does not name asked (`SafeStep.unread`)."""
    heard = _heard(transcript)
    steps = tuple(
        dataclasses.replace(step, unread=True)
        if not step.asked and not _says(step, tree, heard)
        else step
        for step in plan.steps
    )
    return dataclasses.replace(plan, steps=steps)


def _says(step: SafeStep, tree: ViewTree, heard: _Heard) -> bool:
    action = step.action_type
    if action == "TAP":
        return _named(step, tree, heard)
    if action == "SCROLL" and heard.length <= BARE_WORDS and heard.says(DIRECTION_WORDS):
        return True
    if action in ACTION_WORDS:
        return heard.says(ACTION_WORDS[action])
    typed = _words(step.payload or "")
    if action == "TEXT_INPUT":
        return bool(typed) and all(heard.names(frozenset({word})) for word in typed)
    return bool(typed) and heard.names(typed)  # OPEN_APP: the app's name


@dataclasses.dataclass(frozen=True, slots=True)
class _Heard:
    """The transcript's words, indexed for `names`."""

    words: frozenset[str]
    length: int  # how many words were said, "the" and "to" too
    long_latin: tuple[str, ...]  # the Latin words a near spelling may match
    skeletons: tuple[str, ...]  # the Ge'ez words' consonant skeletons, long enough to match
    joined_skeletons: str  # the same, one per line: a shown skeleton inside any is one search

    def says(self, words: frozenset[str]) -> bool:
        """Whether a heard word is one of `words` (`ACTION_WORDS`' rule)."""
        if words & self.words:
            return True
        verbs = {consonants(w) for w in words if not w.isascii()}
        return any(len(s) >= VERB_FROM_CHARS and s in verbs for s in self.skeletons)

    def names(self, shown: frozenset[str]) -> bool:
        """Whether a heard word and a word of `shown` are the same (the module's docstring)."""
        shown = (shown - COMMAND_WORDS) or shown
        if shown & self.words:
            return True
        long_latin = [w for w in shown if w.isascii() and len(w) >= NEAR_FROM_CHARS]
        if long_latin and self.long_latin:
            # Every pair at once, in rapidfuzz's C++: a score under the cutoff is 0.
            scores = process.cdist(
                self.long_latin,
                long_latin,
                scorer=fuzz.ratio,
                score_cutoff=NEAR_SPELLING,
                dtype=numpy.uint8,
                workers=1,
            )
            if scores.any():
                return True
        skeletons = _skeletons(w for w in shown if not w.isascii())
        if not (skeletons and self.skeletons):
            return False
        joined = "\n".join(skeletons)  # one search finds a heard skeleton inside any of them
        return any(said in joined for said in self.skeletons) or any(
            skeleton in self.joined_skeletons for skeleton in skeletons
        )


# One command checks its plan twice when a grant changed between the rules and the record
# (`commands.pipeline.confirm`): the same transcript and texts are read once.
@functools.lru_cache(maxsize=16)
def _heard(transcript: str) -> _Heard:
    words = _words(transcript)
    skeletons = _skeletons(w for w in words if not w.isascii())
    return _Heard(
        words=words,
        length=len(latin_words(transcript))
        + sum(not w.isascii() for w in ethiopic_words(transcript)),
        long_latin=tuple(w for w in words if w.isascii() and len(w) >= NEAR_FROM_CHARS),
        skeletons=skeletons,
        joined_skeletons="\n".join(skeletons),
    )


def _skeletons(geez_words: Iterable[str]) -> tuple[str, ...]:
    skeletons = {consonants(word) for word in geez_words}
    return tuple(s for s in skeletons if len(s) >= SKELETON_FROM_CHARS)


def _named(step: SafeStep, tree: ViewTree, heard: _Heard) -> bool:
    branch = tree.branch(step.target_node_id or "")
    if branch is None:
        return False
    receiver = tree.receiver(branch) or branch
    if is_field(receiver):
        return True
    # What it shows, or for a control that shows nothing, the message the rules read it by
    # ("reply to Abebe's message" names the icon beside "Abebe: see you at 6").
    shown = _shown_words(f"{_start_of(tree.texts(receiver))}\n{_start_of([step.context or ''])}")
    return heard.names(shown)


def _start_of(texts: list[str]) -> str:
    """`texts` joined by line breaks up to `MAX_SHOWN_CHARS`; a text the bound cuts keeps only
    its words before its last whitespace there, so no word is read cut."""
    kept: list[str] = []
    room = MAX_SHOWN_CHARS
    for text in texts:
        if len(text) > room:
            head = text[: max(0, room)].rsplit(maxsplit=1)
            kept += head[:1] if len(head) > 1 else []
            break
        kept.append(text)
        room -= len(text) + 1
    return "\n".join(kept)


@functools.lru_cache(maxsize=64)
def _shown_words(text: str) -> frozenset[str]:
    return _words(text)


def _words(text: str) -> frozenset[str]:
    words = {*latin_words(text), *(w for w in ethiopic_words(text) if not w.isascii())}
    return frozenset(word for word in words if word not in FUNCTION_WORDS)
