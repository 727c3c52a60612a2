"""Does what the user said name what the plan taps? A remote planner reads a transcript that
may be wrong and a screen that may lie to it; where the service cannot see, in the transcript's
own words, the node a TAP acts on, the step is asked, never run on the planner's word.

A TAP is named when the transcript shares a word with what its node shows (the node that
receives the click and everything under it, or for a control that shows nothing the message
the rules read it by, `SafeStep.context`): the same word, a near spelling of a long word
("contact" for "Contacts", by rapidfuzz's ratio), or for Ge'ez the same consonant skeleton
under an inflection ("አበበን" names "አበበ"). Words that name nothing on their own ("the", "to")
never make a match, nor do the words a command is said with ("tap", "go") unless they are all
the label says. A tap on a text field is never asked for this: it only focuses the field.

What this cannot see: a transcript that is wrong and names the wrong node consistently ("send"
heard as "settings", and "Settings" tapped). That is the transcriber's confidence to judge.
"""

from __future__ import annotations

import dataclasses

from rapidfuzz import fuzz

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


def ask_unnamed_taps(plan: SafePlan, tree: ViewTree, transcript: str) -> SafePlan:
    """`plan` with each TAP the transcript does not name asked (`SafeStep.unread`)."""
    heard = _words(transcript)
    steps = tuple(
        dataclasses.replace(step, unread=True)
        if step.action_type == "TAP" and not step.asked and not _named(step, tree, heard)
        else step
        for step in plan.steps
    )
    return dataclasses.replace(plan, steps=steps)


def _named(step: SafeStep, tree: ViewTree, heard: frozenset[str]) -> bool:
    branch = tree.branch(step.target_node_id or "")
    if branch is None:
        return False
    receiver = tree.receiver(branch) or branch
    if is_field(receiver):
        return True
    # What it shows, or for a control that shows nothing, the message the rules read it by
    # ("reply to Abebe's message" names the icon beside "Abebe: see you at 6").
    shown = _words(" ".join([*tree.texts(receiver), step.context or ""]))
    shown = (shown - COMMAND_WORDS) or shown
    return any(_same(word, said) for word in shown for said in heard)


def _words(text: str) -> frozenset[str]:
    words = {*latin_words(text), *(w for w in ethiopic_words(text) if not w.isascii())}
    return frozenset(word for word in words if word not in FUNCTION_WORDS)


def _same(shown: str, said: str) -> bool:
    if shown == said:
        return True
    if not shown.isascii() and not said.isascii():
        a, b = consonants(shown), consonants(said)
        return min(len(a), len(b)) >= 2 and (a in b or b in a)
    if min(len(shown), len(said)) < NEAR_FROM_CHARS:
        return False
    return fuzz.ratio(shown, said) >= NEAR_SPELLING
