"""The closed command grammar of one request: the command templates of its language, filled with
the words this request can name (the labels on a granted screen, the granted apps, the user's
vocabulary terms), as JSGF for pocketsphinx, with a pronunciation for every word in it.

A closed grammar is what makes a small acoustic model accurate: the decoder only chooses among
sentences the product can act on. A free-word loop inside it ("type ...") costs most of that
accuracy (and, with `bestpath`, hangs the decoder), so dictation is a second pass
(`recognizer`), never part of this grammar.

English: open <app>; tap / press / click / select [on] [the] <label> [button]; call <name>;
send [it]; scroll [up | down | left | right]; go back; go home; go to the home screen.
Amharic (Ge'ez words, Amharic word order, the verb last): <app>[ን] ክፈት; <label>[ን] ንካ | ጫን;
[ለ]<name> ደውል; ላክ; ሰርዝ; ወደ ላይ | ታች [ሸብልል]; ተመለስ; ወደ መነሻ ገጽ [ሂድ].
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lisan.commands.safety import GENERIC_SEGMENTS, SCROLL_DIRECTIONS, names_package
from lisan.commands.viewtree import ViewTree, label
from lisan.providers.base import Expected
from lisan.providers.local.phones import Pronouncer
from lisan.users.models import Locale

MAX_PHRASE_WORDS = 6  # a longer label is text on the screen, not a name a user says
MAX_PHRASES = 300  # per slot: a grammar stays small enough to build and search in milliseconds
_LATIN_WORD = re.compile(r"[a-z0-9]+")
_ETHIOPIC_WORD = re.compile(r"[\u1200-\u137f]+")
_ETHIOPIC = re.compile(r"[\u1200-\u137f]")

ENGLISH_FILLERS = frozenset({"the", "a", "an", "on", "button", "app", "it", "to", "my"})
# Words too common to name a node alone: "Your location" is said whole, never "your".
FUNCTION_WORDS = ENGLISH_FILLERS | {
    "your", "you", "our", "here", "there", "this", "that", "from", "with", "and", "for", "of",
    "in", "at", "by", "all", "new", "more", "now",
}  # fmt: skip
ENGLISH_VERBS = {
    "open": ("open", "launch", "start"),
    "tap": ("tap", "press", "click", "select", "touch"),
    "call": ("call", "dial"),
    "send": ("send",),
    "scroll": ("scroll",),
}
# "type ..." and "send ...": dictation, heard in a second pass (`recognizer.dictate`).
DICTATION_VERBS = frozenset({"type", "send", "write"})

# Amharic command words (the verb last), each with its meaning for the planner.
AMHARIC_OPEN = "ክፈት"
AMHARIC_TAP = ("ንካ", "ጫን")
AMHARIC_CALL = "ደውል"
AMHARIC_SEND = "ላክ"
AMHARIC_DELETE = "ሰርዝ"
AMHARIC_WRITE = "ጻፍ"  # "write": dictation, which offline Amharic can only decline
AMHARIC_BACK = "ተመለስ"
AMHARIC_TOWARDS = "ወደ"
AMHARIC_UP, AMHARIC_DOWN = "ላይ", "ታች"
AMHARIC_SCROLL = "ሸብልል"
AMHARIC_HOME = ("መነሻ", "ገጽ")
AMHARIC_GO = "ሂድ"
AMHARIC_OBJECT = "ን"  # the object marker, said after a name ("ቴሌግራምን ክፈት")
AMHARIC_TO = "ለ"  # "to", said before a name ("ለአበበ ደውል")


@dataclass(frozen=True, slots=True)
class Grammar:
    jsgf: str
    pronunciations: dict[str, list[str]]  # every word of the grammar: its readings
    # Amharic on a screen with a text field: "<any words> ጻፍ", decoded only when the command
    # grammar heard nothing it trusts, so that dictation is answered honestly.
    unsupported_dictation: str | None = None


@dataclass(frozen=True, slots=True)
class Slots:
    """What a command can name: spoken phrases (tuples of grammar words)."""

    labels: tuple[tuple[str, ...], ...]
    apps: tuple[tuple[str, ...], ...]
    names: tuple[tuple[str, ...], ...]


def english_words(text: str) -> tuple[str, ...]:
    """A label or name as English grammar words: Latin letters without their accents, lower
    case, digits kept (espeak-ng says them). Other scripts are not English words."""
    bare = "".join(
        char for char in unicodedata.normalize("NFKD", text) if unicodedata.category(char) != "Mn"
    )
    return tuple(_LATIN_WORD.findall(bare.lower()))


def amharic_words(text: str) -> tuple[str, ...]:
    """Ge'ez words as they stand, and any Latin words as English ones."""
    normal = unicodedata.normalize("NFC", text)
    if not _ETHIOPIC.search(normal):
        return english_words(normal)
    return tuple(_ETHIOPIC_WORD.findall(normal))


def app_phrases(package: str) -> list[tuple[str, ...]]:
    """How a user may name a granted app: each segment of its package that names something
    ("telegram", "messenger" for org.telegram.messenger)."""
    segments = [s.lower() for s in package.split(".") if s.lower() not in GENERIC_SEGMENTS]
    return [(segment,) for segment in segments if _LATIN_WORD.fullmatch(segment)]


def slots(expected: Expected, language: Locale) -> Slots:
    words = amharic_words if language is Locale.AM_ET else english_words
    labels: list[tuple[str, ...]] = []
    if expected.screen is not None:
        tree = ViewTree(expected.screen.view_tree)
        for node in tree.values():
            shown = label(node)
            if shown is not None:
                labels += _phrases(words(shown))
    names = [phrase for term in expected.vocabulary for phrase in _phrases(words(term))]
    apps = [phrase for package in expected.apps for phrase in app_phrases(package)]
    # A term is an app's name when it names a granted package (the rule the safety module
    # checks), so "open telebirr" is heard only when Telebirr is granted.
    apps += [
        words(term)
        for term in expected.vocabulary
        if any(names_package(term, package) for package in expected.apps)
    ]
    return Slots(
        labels=_unique(labels),
        apps=_unique(apps),
        names=_unique(names + labels),  # a contact is a term or a name on the screen
    )


def build(expected: Expected, language: Locale, pronouncer: Pronouncer) -> Grammar:
    """The request's grammar. A phrase with a word nothing can pronounce is left out: the
    decoder refuses a grammar with a word it cannot say."""
    filled = slots(expected, language)
    slot_words = {word for phrase in filled.labels + filled.apps + filled.names for word in phrase}
    # Names get a phonetic reading too; in Amharic, so does every word in Latin letters, which
    # an Amharic speaker reads as written ("telegram" as te-le-gram).
    named = {word for phrase in filled.names + filled.apps for word in phrase}
    readings = _pronounce(slot_words, named, pronouncer, phonetic=language is Locale.AM_ET)
    filled = Slots(
        *(_sayable(phrases, readings) for phrases in (filled.labels, filled.apps, filled.names))
    )
    rules = _amharic_rules(filled) if language is Locale.AM_ET else _english_rules(filled)
    template_words = {w for rule in rules for w in _rule_words(rule)} - readings.keys()
    readings.update(_pronounce(template_words, set(), pronouncer, phonetic=False))
    unsupported_dictation = None
    if language is Locale.EN_US:
        rules = _with_garbage(rules, dictation=_has_field(expected))
        readings.update({word: [phone] for word, phone in GARBAGE_WORDS.items()})
    elif _has_field(expected):
        unsupported_dictation = _amharic_dictation()
        readings.update({word: [phone] for word, phone in GARBAGE_WORDS.items()})
        readings.update(_pronounce({AMHARIC_WRITE}, set(), pronouncer, phonetic=False))
    jsgf = "#JSGF V1.0;\ngrammar command;\n" + "\n".join(rules) + "\n"
    return Grammar(jsgf, readings, unsupported_dictation)


# English speech that is no command finds a better path through a loop of single phones than
# through any command, once that loop's entry costs GARBAGE_WEIGHT: the decoder then answers
# with garbage words, and the command is REPROMPTed. Measured with bench/offline.py: real
# people's single words refused 48% -> 92%, but espeak-ng's female English voice loses 17% of
# its real commands to the loop (the male voice 4%). From 1e-28 down the decoder prunes the
# loop away; 1e-24 and 1e-26 measured the same. Not in Amharic, whose commands the English
# phones fit so loosely that the loop wins them too.
GARBAGE_WEIGHT = "1e-26"
# Dictation ("type" then any sounds) only where no command fits: at the commands' own weight it
# took "tap the send button" for "type ..." ("tap" and "type" differ by one vowel).
DICTATION_WEIGHT = "1e-8"
GARBAGE_PREFIX = "g_"
GARBAGE_WORDS = {
    GARBAGE_PREFIX + phone.lower(): phone
    for phone in (
        "AA",
        "AE",
        "AH",
        "AO",
        "AW",
        "AY",
        "B",
        "CH",
        "D",
        "DH",
        "EH",
        "ER",
        "EY",
        "F",
        "G",
        "HH",
        "IH",
        "IY",
        "JH",
        "K",
        "L",
        "M",
        "N",
        "NG",
        "OW",
        "OY",
        "P",
        "R",
        "S",
        "SH",
        "T",
        "TH",
        "UH",
        "UW",
        "V",
        "W",
        "Y",
        "Z",
        "ZH",
    )
}


def _with_garbage(rules: list[str], *, dictation: bool) -> list[str]:
    """The garbage loop, and, on a screen with a text field, dictation: a dictation verb then
    any sounds. The words after the verb are heard in a second pass (`recognizer.dictate`);
    here the grammar only decides that the speech began with the verb."""
    public, *others = rules
    head, body = public.rstrip(";").split(" = ", 1)
    loop = " | ".join(GARBAGE_WORDS)
    verbs = " | ".join(sorted(DICTATION_VERBS))
    typed = f" | /{DICTATION_WEIGHT}/ ( ( {verbs} ) <garbage> )" if dictation else ""
    return [
        f"{head} = /1/ ( {body} ){typed} | /{GARBAGE_WEIGHT}/ <garbage>;",
        *others,
        f"<garbage> = ( {loop} )+;",
    ]


def _amharic_dictation() -> str:
    """Any sounds, then "ጻፍ" ("write"). A search of its own, never part of the command grammar:
    there its loop cost real commands ("አበበ ንካ" went unheard). On the bench it took 13 of 16
    Amharic dictations, 1 of 64 sentences that are no command, and no command."""
    loop = " | ".join(GARBAGE_WORDS)
    return (
        "#JSGF V1.0;\ngrammar dictation;\n"
        f"public <dictation> = <garbage> {AMHARIC_WRITE};\n<garbage> = ( {loop} )+;\n"
    )


def _has_field(expected: Expected) -> bool:
    """Whether the screen has a text field to type into (dictation has nowhere to go else)."""
    if expected.screen is None:
        return False
    return any("editable" in node.flags for node in ViewTree(expected.screen.view_tree).values())


def is_garbage(text: str) -> bool:
    return any(word.startswith(GARBAGE_PREFIX) for word in text.split())


def dictation_verb(text: str) -> str | None:
    """The verb of a dictation the grammar heard ("type" then sounds), else None."""
    words = text.split()
    if len(words) > 1 and words[0] in DICTATION_VERBS and is_garbage(" ".join(words[1:])):
        return words[0]
    return None


def _sayable(
    phrases: tuple[tuple[str, ...], ...], readings: dict[str, list[str]]
) -> tuple[tuple[str, ...], ...]:
    return tuple(phrase for phrase in phrases if all(word in readings for word in phrase))


def _english_rules(filled: Slots) -> list[str]:
    verbs = {key: _alternatives([(v,) for v in values]) for key, values in ENGLISH_VERBS.items()}
    commands = [
        f"{verbs['tap']} [on] [the] <label> [button]",
        f"{verbs['send']} [it]",
        f"{verbs['scroll']} [{_alternatives([(d,) for d in sorted(SCROLL_DIRECTIONS)])}]",
        "go back",
        "back",
        "go home",
        "go to the home screen",
    ]
    rules = [f"public <command> = {' | '.join(f'( {c} )' for c in _usable(commands, filled))};"]
    if filled.apps:
        rules[0] = rules[0][:-1] + f" | ( {verbs['open']} [the] <app> [app] );"
        rules.append(f"<app> = {_alternatives(filled.apps)};")
    if filled.names:
        rules[0] = rules[0][:-1] + f" | ( {verbs['call']} <name> );"
        rules.append(f"<name> = {_alternatives(filled.names)};")
    if filled.labels:
        rules.append(f"<label> = {_alternatives(filled.labels)};")
    return rules


def _amharic_rules(filled: Slots) -> list[str]:
    tap = _alternatives([(word,) for word in AMHARIC_TAP])
    commands = [
        f"<label> [{AMHARIC_OBJECT}] {tap}",
        AMHARIC_SEND,
        AMHARIC_DELETE,
        f"{AMHARIC_TOWARDS} ( {AMHARIC_UP} | {AMHARIC_DOWN} ) [{AMHARIC_SCROLL}]",
        AMHARIC_BACK,
        f"{AMHARIC_TOWARDS} {' '.join(AMHARIC_HOME)} [{AMHARIC_GO}]",
    ]
    rules = [f"public <command> = {' | '.join(f'( {c} )' for c in _usable(commands, filled))};"]
    if filled.apps:
        rules[0] = rules[0][:-1] + f" | ( <app> [{AMHARIC_OBJECT}] {AMHARIC_OPEN} );"
        rules.append(f"<app> = {_alternatives(filled.apps)};")
    if filled.names:
        rules[0] = (
            rules[0][:-1] + f" | ( [{AMHARIC_TO}] <name> [{AMHARIC_OBJECT}] {AMHARIC_CALL} );"
        )
        rules.append(f"<name> = {_alternatives(filled.names)};")
    if filled.labels:
        rules.append(f"<label> = {_alternatives(filled.labels)};")
    return rules


def _usable(commands: list[str], filled: Slots) -> list[str]:
    """Templates whose slots have something to say: no <label> rule on a screen without one."""
    return [c for c in commands if "<label>" not in c or filled.labels]


def _phrases(words: tuple[str, ...]) -> list[tuple[str, ...]]:
    """A label as users say it: whole, and its single words of three letters or more."""
    if not words or len(words) > MAX_PHRASE_WORDS:
        return []
    singles = [(w,) for w in words if len(w) >= 3 and w not in FUNCTION_WORDS]
    return [words, *singles] if len(words) > 1 else [words]


def _unique(phrases: Iterable[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    """Each phrase once, empty ones dropped (a label of emoji has no words to say)."""
    return tuple(dict.fromkeys(phrase for phrase in phrases if phrase))[:MAX_PHRASES]


def _alternatives(phrases: Sequence[tuple[str, ...]]) -> str:
    return "( " + " | ".join(" ".join(phrase) for phrase in phrases) + " )"


_JSGF_WORD = re.compile(r"(?<![<\w])([a-z0-9]+|[\u1200-\u137f]+)(?![\w>])")


def _rule_words(rule: str) -> list[str]:
    body = rule.split("=", 1)[1]
    return _JSGF_WORD.findall(re.sub(r"<[^>]*>", " ", body))


def _pronounce(
    words: set[str], named: set[str], pronouncer: Pronouncer, *, phonetic: bool
) -> dict[str, list[str]]:
    """Readings of each word that has one: Ge'ez words in Amharic, Latin ones in English (names
    with a phonetic alternate; every Latin word with one when `phonetic`)."""
    ethiopic = sorted(w for w in words if _ETHIOPIC.search(w))
    latin = sorted(w for w in words if not _ETHIOPIC.search(w))
    result = pronouncer.amharic(ethiopic)
    result.update(pronouncer.english([w for w in latin if w not in named], phonetic=phonetic))
    result.update(
        pronouncer.english([w for w in latin if w in named], names=True, phonetic=phonetic)
    )
    return {word: readings for word, readings in result.items() if readings}
