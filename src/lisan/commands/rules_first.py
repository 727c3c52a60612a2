"""Step 5's first half: the rules plan what they know, so a language model plans only the rest.

With a remote provider (`LISAN_PROVIDER=openai`) and `LISAN_PLAN_LOCAL_FIRST` on, the
transcript goes first to the offline provider's planner (`providers.local.planner`: the
deterministic rules over the screen's controls, in both languages). When it plans (a plan with
steps, asked or not as it decides), that plan is the command's and no model is called; when it
declines, the remote planner is called as before. Its plan is a claim like any other: the same
plan rules check it (`validate`). The rules run on this machine, so they may read an
ungranted app's screen, as the offline provider does (and decline to act on it).

A remote transcriber writes as people do ("Tap Send.", "ፒዛ ፈልግ።"): the rules read the words
folded to lower case with the punctuation at each word's edges dropped, which is how the
offline recogniser spells them.

Which planner planned (`Planner`) is the command's `planner` label in `lisan_commands_total`,
and the `rules_planning` key among the event's timings says the rules were asked.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Sequence

from lisan.commands.stages import Planner, Stage, timed
from lisan.commands.state import Command, Context, Progress
from lisan.core.locale import Locale
from lisan.core.settings import Settings
from lisan.providers.base import Screen, VoiceProvider
from lisan.providers.local import planner as rules


def plan_by_rules(
    settings: Settings,
    provider: VoiceProvider,
    command: Command,
    context: Context,
    progress: Progress,
) -> Progress:
    """The rules' plan when they have one (`raw_plan` set, `planner` RULES); else the progress
    with the planner that will be asked: the model, or for the offline provider its own
    rules."""
    if provider.keeps_screens_local:  # the offline provider's planner is these rules
        return dataclasses.replace(progress, planner=Planner.RULES)
    if not settings.plan_local_first:
        return dataclasses.replace(progress, planner=Planner.MODEL)
    sent = command.request.screen_context
    screen = Screen(
        sent.current_package,
        sent.view_tree_summary,
        granted=sent.current_package in context.apps,
    )
    with timed(Stage.RULES_PLANNING) as lap:
        plan = rules_plan(progress.transcript or "", screen, command.request.locale, context.apps)
    if plan is None:  # the rules decline, or would read only part: the model is asked
        return progress.lap(lap, planner=Planner.MODEL)
    return progress.lap(lap, planner=Planner.RULES, raw_plan=plan)


def rules_plan(
    transcript: str, screen: Screen, locale: Locale, apps: Sequence[str]
) -> rules.Plan | None:
    """The rules' plan of a transcript on the phone's screen, or None when the model is to
    plan it: the rules decline, the speech is longer than `RULES_MAX_WORDS`, or it joins two
    commands that the rules would read as one step."""
    words = rules_words(transcript)
    said = words.split()
    # Speech this long is the model's to read; and two commands joined ("tap Abebe and
    # delete the chat") are one step to the rules, which read one command: the model
    # reads both. A plan of the join's own steps ("type hi and send": typing, then the
    # send button) is the rules' to keep.
    if len(said) > RULES_MAX_WORDS:
        return None
    plan = rules.plan(words, screen, locale, apps)
    steps = plan["steps"]
    if not steps or (len(steps) == 1 and not _JOINERS.isdisjoint(said)):
        return None
    return plan


# The longest transcript the rules read: a command they know is a few words ("search for the
# pizza place near me" is 7); what is longer is an instruction or a dictation, and the rules'
# label search grows with the words on a large screen (docs/benchmarks.md, "Measured choices").
RULES_MAX_WORDS = 12

# Words that join two commands in one breath, in both languages.
_JOINERS = frozenset(
    {"and", "then", "also", "after", "afterwards", "plus", "እና", "ከዚያ", "ከዚያም", "ከዛ", "ከዛም", "ቀጥሎ"}
)


def rules_words(transcript: str) -> str:
    """The transcript as the rules read it: lower case, each word without the punctuation at
    its edges ("Send." is "send", "Wi-Fi" stays whole), words apart by single spaces."""
    words = (_strip_punctuation(word) for word in transcript.casefold().split())
    return " ".join(word for word in words if word)


def _strip_punctuation(word: str) -> str:
    start, end = 0, len(word)
    while start < end and unicodedata.category(word[start]).startswith("P"):
        start += 1
    while end > start and unicodedata.category(word[end - 1]).startswith("P"):
        end -= 1
    return word[start:end]
