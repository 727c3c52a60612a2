"""Two ears, one answer: pocketsphinx decodes the request's command grammar, Whisper tiny.en
scores every command the same request allows (`whisper.scorer`), and the service acts only on
what they make of it together. Each is wrong in its own way: pocketsphinx forces any speech onto
some command of its grammar; Whisper, asked which command was said, always names one. On speech
that is no command they almost never name the same one, so their agreement is the gate.

English: act when both name the same command (the same `planner.Intent`: "press the save button"
and "tap save" agree), or when Whisper's own score is high enough alone (`ENGLISH_CONFIDENT`);
otherwise nothing is heard, and the pipeline asks again. Amharic: no registry package carries
Amharic-trained speech weights, so Whisper hears the candidates written in Latin letters, and
pocketsphinx's command is acted on only when Whisper puts it within `AMHARIC_REACH` of its best.

Candidates are the grammar's commands in one spelling each ("tap <label>", "open <app>", "call
<name>", "send", "scroll <direction>", "go back", "go home"; in Amharic "<label> ንካ", ...), at
most `MAX_CANDIDATES` (the first of each kind first), so the cost of a screen is bounded.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from lisan.core.locale import Locale
from lisan.providers.local import vocabulary as v
from lisan.providers.local.grammar import Slots
from lisan.providers.local.planner import Intent, intent_of
from lisan.providers.local.sounds import said_in_latin
from lisan.providers.local.whisper.scorer import Scored, Scorer
from lisan.screen.actions import SCROLL_DIRECTIONS

# English: Whisper's score (mean log-probability per token, less 0.6 times its mean on silence)
# from which it is trusted alone; and below which even the two ears agreeing is no command: for
# a command that names something, and for one that names nothing, which a single word of real
# speech fits easily (a real "no" agreed as "go home", "right" as "scroll right"). Amharic: how
# far below Whisper's best pocketsphinx's command may be and still be asked about. From
# `python -m bench.offline --calibrate`, fitted on one half of the bench's sentences and voices
# and reported on the other (docs/benchmarks-history-2026.md, "the offline provider's second ear").
ENGLISH_CONFIDENT = 1.0
ENGLISH_AGREEMENT_FLOOR = -1.0
ENGLISH_FIXED_FLOOR = -1.0
AMHARIC_REACH = 0.3
MAX_CANDIDATES = 160


@dataclass(frozen=True, slots=True)
class Candidate:
    text: str  # the transcript, in the grammar's words, that the planner reads
    spoken: str  # what Whisper scores
    intent: Intent
    decoded: bool = False  # pocketsphinx's own words, not one of the screen's spellings


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the two ears made of it: the transcript to act on ("" for none), how it was reached
    (`agreed`, `whisper`, or why not), and Whisper's score of it."""

    text: str
    how: str
    score: float | None


# The English verbs whose choice the second ear leaves to Whisper (`whisper.scorer.first_word`):
# the candidates are said with the verb it hears.
ENGLISH_VERB_CHOICES = {action: v.ENGLISH_VERBS[action] for action in ("tap", "open", "call")}


def candidates(
    slots: Slots, language: Locale, *, decoded: str = "", verbs: dict[str, str] | None = None
) -> list[Candidate]:
    """The request's commands, bounded. A command that names something is said in the shape
    pocketsphinx heard for its action ("tap on the {} button" from "tap on the save button"),
    so that every candidate carries the same words around the name and Whisper chooses by the
    name alone; else with `verbs`' verb ("press {}"). pocketsphinx's hypothesis itself is added
    when no slot holds its name (`decoded`)."""
    shapes = {
        action: f"{verb} {{}}"
        for action, verb in (verbs or {a: w[0] for a, w in ENGLISH_VERB_CHOICES.items()}).items()
    }
    if language is Locale.AM_ET:
        shapes = {"tap": f"{{}} {v.AMHARIC_TAP[0]}", "open": f"{{}} {v.AMHARIC_OPEN}",
                  "call": f"{{}} {v.AMHARIC_CALL}"}  # fmt: skip
    own = intent_of(decoded, language) if decoded else None
    if own is not None and own.action in shapes and own.words:
        shapes[own.action] = _shape(decoded, own.words) or shapes[own.action]
    texts = [
        *(shapes["tap"].format(" ".join(label)) for label in slots.labels),
        *(shapes["open"].format(" ".join(app)) for app in slots.apps),
        *(shapes["call"].format(" ".join(name)) for name in slots.names),
    ]
    if language is Locale.AM_ET:
        texts += [
            v.AMHARIC_SEND, v.AMHARIC_DELETE, v.AMHARIC_BACK,
            f"{v.AMHARIC_TOWARDS} {v.AMHARIC_UP} {v.AMHARIC_SCROLL}",
            f"{v.AMHARIC_TOWARDS} {v.AMHARIC_DOWN} {v.AMHARIC_SCROLL}",
            f"{v.AMHARIC_TOWARDS} {' '.join(v.AMHARIC_HOME)}",
        ]  # fmt: skip
    else:
        texts += [
            "send", "send it", "scroll", *(f"scroll {d}" for d in sorted(SCROLL_DIRECTIONS)),
            *(" ".join(words) for words in v.ENGLISH_BACK + v.ENGLISH_HOME),
        ]  # fmt: skip
    found: dict[str, Candidate] = {}
    for text in texts:
        intent = intent_of(text, language)
        if intent is not None and text not in found:
            found[text] = Candidate(text, _spoken(text, language), intent)
    fixed = [c for c in found.values() if not c.intent.words]
    named = [c for c in found.values() if c.intent.words]
    chosen = (fixed + _interleave(named))[:MAX_CANDIDATES]
    if own is not None and all(c.text != decoded for c in chosen):
        chosen.append(Candidate(decoded, _spoken(decoded, language), own, decoded=True))
    return chosen


def _shape(decoded: str, named: tuple[str, ...]) -> str | None:
    """`decoded` with its (last) run of the words `named` as `{}`; None when they are not one
    run ("tap about the phone" names "about phone")."""
    words = decoded.split()
    for start in range(len(words) - len(named), -1, -1):
        if tuple(words[start : start + len(named)]) == named:
            return " ".join([*words[:start], "{}", *words[start + len(named) :]])
    return None


def _spoken(text: str, language: Locale) -> str:
    return said_in_latin(text) if language is Locale.AM_ET else text


def _interleave(named: list[Candidate]) -> list[Candidate]:
    """Taps, opens and calls taken in turn, so a bound cuts each kind alike."""
    kinds: dict[str, list[Candidate]] = {}
    for candidate in named:
        kinds.setdefault(candidate.intent.action, []).append(candidate)
    queues = list(kinds.values())
    out: list[Candidate] = []
    for index in range(max((len(q) for q in queues), default=0)):
        out += [queue[index] for queue in queues if index < len(queue)]
    return out


def judge(
    decoded: str,
    scored: Scored,
    heard: Sequence[Candidate],
    language: Locale,
    *,
    confident: float = ENGLISH_CONFIDENT,
    floor: float = ENGLISH_AGREEMENT_FLOOR,
    fixed_floor: float = ENGLISH_FIXED_FLOOR,
    reach: float = AMHARIC_REACH,
) -> Verdict:
    """The answer of the two ears: `decoded` is pocketsphinx's hypothesis ("" for none),
    `scored` Whisper's scores of `heard`."""
    best = scored.best
    mine = next((i for i, c in enumerate(heard) if decoded and c.text == decoded), None)
    if language is Locale.AM_ET:
        if mine is None:
            return Verdict("", "not_a_command", None)
        if scored.margin(mine) == 0.0:
            return Verdict(decoded, "agreed", scored.scores[mine])
        if scored.margin(mine) <= reach:  # near Whisper's best: heard, but asked before it runs
            return Verdict(decoded, "near", scored.scores[mine])
        return Verdict("", "disagreed", scored.scores[mine])
    # Whisper's best among the screen's own spellings: pocketsphinx's words themselves are no
    # witness ("touch on the bluetooth" sounds much like "turn on the flashlight").
    best = max((i for i, c in enumerate(heard) if not c.decoded), key=scored.scores.__getitem__,
               default=best)  # fmt: skip
    if decoded and intent_of(decoded, language) == heard[best].intent:
        if scored.scores[best] >= (floor if heard[best].intent.words else fixed_floor):
            return Verdict(decoded, "agreed", scored.scores[best])
        return Verdict("", "agreed_too_faintly", scored.scores[best])
    if scored.scores[best] >= confident:
        return Verdict(heard[best].text, "whisper", scored.scores[best])
    return Verdict("", "disagreed", scored.scores[best])


Judge = Callable[[str, Scored, Sequence[Candidate], Locale], Verdict]


def confidence_of(verdict: Verdict) -> float:
    """The transcript's confidence in [0, 1]: 0.5 at `ENGLISH_CONFIDENT`, rising with Whisper's
    score; at least 0.9 when the two ears agreed."""
    score = verdict.score if verdict.score is not None else ENGLISH_CONFIDENT
    alone = 1.0 / (1.0 + math.exp(-4.0 * max(min(score - ENGLISH_CONFIDENT, 50.0), -50.0)))
    return max(alone, 0.9) if verdict.how == "agreed" else alone


def listen_again(
    scorer: Scorer, pcm: bytes, slots: Slots, language: Locale, decoded: str, judge: Judge
) -> Verdict:
    """The second ear on one recording: Whisper hears it once, chooses each action's verb,
    scores the request's candidates, and `judge` weighs them against pocketsphinx's `decoded`."""
    listening = scorer.listen(np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0)
    verbs = {
        action: scorer.first_word(listening, words)
        for action, words in ENGLISH_VERB_CHOICES.items()
    }
    heard = candidates(slots, language, decoded=decoded, verbs=verbs)
    if not heard:
        return Verdict("", "no_candidates", None)
    return judge(decoded, scorer.score(listening, [c.spoken for c in heard]), heard, language)
