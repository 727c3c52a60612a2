"""Which control of the screen an Amharic transcript names by its sound: an English label
written as it sounds, in Ge'ez script ("ሲስተም" for "System", "ኖቲፋይ ሚ" for "NOTIFY ME").

Most apps used in Ethiopia show English labels, and an Amharic transcriber writes an English
word in Ge'ez letters. The two are compared by a sound key: the Amharic words as an English
reader would say them (`said_in_latin`, anyascii per syllable), the label transliterated by
anyascii too (accents, other scripts), then both reduced to their consonants (`said_key`,
`sound_key`). Vowels are dropped because the two spellings agree least on them (ባትሪ "batri"
for "Battery", ኢሜጅስ "imejs" for "Images"); a doubled letter is one, as Ge'ez writes it; and
the letters English spells two ways are read as they sound (c as k or s, soft g as j, ph as
f, z as s...).

The keys must agree at least `SOUNDS_LIKE_FROM` (rapidfuzz's ratio: for a short key, only the
same key), and a key of fewer than `SHORTEST_KEY` consonants names nothing: ሚ alone ("m")
sounds like too much. A match by sound is never certain (the planner asks), and when the
labels that sound like what was said belong to more than one control, none is chosen.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence

from anyascii import anyascii
from rapidfuzz import fuzz

from lisan.screen.nodes import ViewNode, label
from lisan.screen.viewtree import ViewTree

# On the held-out set's Amharic commands every transliterated label scored 100 against its
# control and every other label at most 67 (bench.real_commands): strict, so a key that
# lacks one of six consonants still matches and one that lacks one of five does not.
SOUNDS_LIKE_FROM = 90
SHORTEST_KEY = 2

_SIXTH_ORDER = 5  # a Ge'ez row's sixth form: the consonant with no vowel of its own, or ɨ
# Letters English spells two ways, each as Ge'ez writes it, replaced in this order: "ch" is
# one sound (ቸ), kept apart from c; c and g before e, i or y are s and j ("Service", "Images").
# Only an English spelling is read so: a Ge'ez word in Latin letters is spelled as it sounds
# (ሴቲንግስ "setinigis" has a hard g), and shares only the last two, "ch" and z as s.
_ENGLISH_SPELLINGS = (
    ("ph", "f"), ("ck", "k"), ("gh", "g"), ("th", "t"), ("wh", "w"), ("qu", "kw"), ("ch", "C"),
    ("ce", "se"), ("ci", "si"), ("cy", "sy"), ("c", "k"), ("ge", "je"), ("gi", "ji"),
    ("gy", "jy"), ("x", "ks"), ("q", "k"), ("z", "s"),
)  # fmt: skip
_SOUNDED_SPELLINGS = (("ch", "C"), ("z", "s"))
# Bytes that are no Latin letter are a space; vowels (y too: "Notify", "Battery" end in one)
# and spaces are then dropped.
_LETTERS = bytes(c if ord("a") <= c <= ord("z") else ord(" ") for c in range(256))
_DROPPED = b"aeiouy "


def said_in_latin(text: str) -> str:
    """Amharic as an English reader would say it, for an English-only model to hear: each
    syllable transliterated (anyascii), a sixth-order consonant followed by "i" inside a word as
    it is spoken (ክፈት is kɨfət, "kifet", not "kfet"; ሸብልል "shebilil"), ejective marks dropped
    (ቅ is "k", not "k'")."""
    words = []
    for word in text.split():
        sounds = []
        for index, char in enumerate(word):
            latin = anyascii(char).lower().replace("'", "")
            code = ord(char)
            inside = index < len(word) - 1
            if 0x1200 <= code <= 0x135A and code % 8 == _SIXTH_ORDER and inside and latin:
                latin += "i"
            sounds.append(latin)
        words.append("".join(sounds))
    return " ".join(w for w in words if w)


def sound_key(text: str) -> str:
    """The consonants of an English label as they sound, its words run together: "Discover" is
    "dskvr", "Images" "mjs" (see the module's docstring)."""
    return _key(text, _ENGLISH_SPELLINGS)


def said_key(words: Sequence[str]) -> str:
    """The consonants of Ge'ez words as they sound, as `sound_key` gives a label's: ዲስከቨር
    ("diskever") is "dskvr", ኢሜጅስ ("imejs") "mjs"."""
    return _key(said_in_latin(" ".join(words)), _SOUNDED_SPELLINGS)


def _key(text: str, spellings: tuple[tuple[str, str], ...]) -> str:
    """Built from whole-string operations, not a loop per letter: a label may be 64 KB."""
    letters = anyascii(text).lower().encode("ascii", "ignore").translate(_LETTERS).decode()
    single = "".join(letter for letter, _ in itertools.groupby(letters))  # "tt" is one t
    for spelling, sound in spellings:
        single = single.replace(spelling, sound)
    return single.encode().translate(None, _DROPPED).decode()


def is_ethiopic(text: str) -> bool:
    return any("\u1200" <= c <= "\u139f" or "\u2d80" <= c <= "\u2ddf" for c in text)


def by_sound(
    tree: ViewTree,
    forms: Sequence[Sequence[str]],
    *,
    texts: Callable[[ViewNode], Iterable[str | None]] = lambda node: (label(node),),
) -> ViewNode | None:
    """The control one of whose nodes' `texts` (its label, by default), written in Latin
    letters, sounds like one of the `forms` of the Ge'ez words said: the node that receives a
    tap on it, else the node itself. None when no enabled node sounds like them, or when those
    that do are more than one control (two receivers of a tap, or two nodes that take none)."""
    said = {key for words in forms if len(key := said_key(words)) >= SHORTEST_KEY}
    if not said:
        return None
    sounds: dict[str, bool] = {}  # a screen repeats its labels: each is keyed once
    controls: dict[str, ViewNode] = {}
    for node in tree.values():
        if "disabled" in node.flags:
            continue
        for text in texts(node):
            if not text or is_ethiopic(text):
                continue
            if text not in sounds:
                key = sound_key(text)
                sounds[text] = len(key) >= SHORTEST_KEY and any(
                    fuzz.ratio(heard, key, score_cutoff=SOUNDS_LIKE_FROM) for heard in said
                )
            if sounds[text]:
                control = _control(tree, node)
                controls.setdefault(control.node_id, control)
                break
    return next(iter(controls.values())) if len(controls) == 1 else None


def _control(tree: ViewTree, node: ViewNode) -> ViewNode:
    """What a tap on `node` acts on: the node receiving it, else the node itself."""
    branch = tree.branch(node.node_id)
    receiver = tree.receiver(branch) if branch is not None else None
    return receiver.node if receiver is not None and receiver.node is not None else node
