"""Which node of the screen a spoken label names: whole words, not letters.

What was said ("send", "family group", "ሰርዝ") and each node's label are read through
`core.text` (`fold` and `folds`: look-alike letters, invisible characters and marks dropped,
punctuation a separator, camelCase split), then compared word by word:

1. exact: the label's words are what was said ("Send" for "send");
2. whole words: what was said is a run of whole words of the label ("Send message" for "send",
   "Family group" for "family");
3. look-alike: neither, but each word said is close in letters to one of the label's
   (rapidfuzz's ratio, on average at least `LOOK_ALIKE_FROM`): "Unsend", "Sent" or "Resend"
   for "send", "Delegate" for "delete". Never certain: a word that holds the spoken one, or
   differs by a letter, is often another act (unsend, delegate).

The best node is the one in the highest class (then, among look-alikes, the closest; then one
with the action's flag, clickable for a tap). It is `certain` only when it is exact or whole
words and no node with another label competes: none in the same class and, for a whole-words
match, no look-alike within `NEAR_FROM` ("contact" is in "Add contact" but looks like
"Search contacts": the decoder may have missed an "s"). The planner asks the user about
anything else, and acts on nothing it is not sure of.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process

from lisan.core.text import fold, folds
from lisan.screen.nodes import ViewNode, label
from lisan.screen.viewtree import ViewTree

EXACT, WHOLE_WORDS, LOOK_ALIKE = 3, 2, 1
LOOK_ALIKE_FROM = 70  # closeness (0 to 100) from which a label looks like what was said
NEAR_FROM = 85  # a look-alike this close makes a whole-words match uncertain


@dataclass(frozen=True, slots=True)
class Found:
    node: ViewNode
    certain: bool  # exact or whole words, and no node with another label competes
    whole: bool = True  # exact or whole words, competed or not (not a mere look-alike)
    exact: bool = False  # the label's words are what was said, no more


def find(tree: ViewTree, spoken: Sequence[str], *, prefer: str) -> Found | None:
    """The enabled node whose label best matches any of the spoken forms (see the module's
    docstring); None when none matches even in letters."""
    forms = [words for words in (tuple(fold(form).split()) for form in spoken) if words]
    if not forms:
        return None
    labelled = [
        (node, shown)
        for node in tree.values()
        if (shown := label(node)) is not None and "disabled" not in node.flags
    ]
    # A screen shows one label on many rows ("Delete" beside each item), and labels share
    # readings: each distinct reading is compared once, by its place in `readings`.
    places: dict[tuple[str, ...], int] = {}
    of_label: dict[str, list[int]] = {}
    for _, shown in labelled:
        if shown not in of_label:
            of_label[shown] = [places.setdefault(words, len(places))
                               for words in tree.reading_words(shown)]  # fmt: skip
    kinds = _kinds(forms, list(places))
    scored: list[tuple[tuple[int, float, bool], ViewNode, str]] = []
    for node, shown in labelled:
        match, closeness = max((kinds[place] for place in of_label[shown]), default=(0, 0.0))
        if match:
            scored.append(((match, closeness, prefer in node.flags), node, shown))
    if not scored:
        return None
    scored.sort(key=lambda entry: entry[0], reverse=True)
    (best_class, *_), best, best_label = scored[0]
    best_folded = fold(best_label)
    # A node competes in the best one's class (or, against whole words, as a near look-alike)
    # when its label is another: the class is checked first, as it costs no folding.
    competed = any(
        (match == best_class or (best_class == WHOLE_WORDS and closeness >= NEAR_FROM))
        and fold(shown) != best_folded
        for (match, closeness, _), _, shown in scored[1:]
    )
    whole = best_class >= WHOLE_WORDS
    return Found(best, certain=whole and not competed, whole=whole, exact=best_class == EXACT)


def says(
    texts: Iterable[str | None],
    words: Iterable[str],
    *,
    read: Callable[[str], Iterable[tuple[str, ...]]] | None = None,
) -> bool:
    """Whether any of `texts` holds one of `words` as a whole word (folded, camelCase and
    identifiers split): "Search contacts", "search_src_text" and "SearchView" say "search";
    "Researchers" does not. `read` gives a text's readings as words (`folds`'; a tree's
    `reading_words` folds each of its texts once)."""
    wanted = _folded(tuple(words))
    read = read or _reading_words
    return any(not wanted.isdisjoint(reading) for text in texts if text for reading in read(text))


def _reading_words(text: str) -> list[tuple[str, ...]]:
    return [tuple(reading.split()) for reading in folds(text)]


@functools.lru_cache(maxsize=32)
def _folded(words: tuple[str, ...]) -> frozenset[str]:
    """The words folded, once per list: `says` is asked with a few fixed vocabulary lists, for
    every node of a screen."""
    return frozenset(fold(word) for word in words)


def _kinds(
    forms: list[tuple[str, ...]], readings: list[tuple[str, ...]]
) -> list[tuple[int, float]]:
    """How each reading matches the best of the spoken forms: its class, and how close it is
    in letters (0 to 100); (0, 0) for no match. A label matches as its best reading does."""
    said = set(forms)
    exact = {place for place, reading in enumerate(readings) if reading in said}
    holding = {
        place
        for words in forms
        for place, reading in enumerate(readings)
        if words[0] in reading and _holds(reading, words)
    }
    closest = _closeness(forms, readings).max(axis=0, initial=0.0).tolist()
    return [
        (EXACT, 100.0) if place in exact
        else (WHOLE_WORDS, 100.0) if place in holding
        else (LOOK_ALIKE, closeness) if closeness >= LOOK_ALIKE_FROM
        else (0, 0.0)
        for place, closeness in enumerate(closest)
    ]  # fmt: skip


def _closeness(forms: list[tuple[str, ...]], readings: list[tuple[str, ...]]) -> np.ndarray:
    """How close each reading's words are in letters to each spoken form (by form, then
    reading): each word said against the reading's closest word (rapidfuzz's ratio), on
    average, or the two run together ("log out", "Logout"); 0 for a reading of no words.

    Computed for the whole screen at once: every word said against every word shown in one
    `process.cdist` call, every form run together against every reading in one more, so a
    screen of thousands of labels costs a few array operations, not a Python loop per pair of
    words. The sums run in the order of the form's words, so each figure is the one the loop
    per pair gives."""
    figures = np.zeros((len(forms), len(readings)))
    worded = [place for place, reading in enumerate(readings) if reading]
    if worded:
        shown = [readings[place] for place in worded]
        shown_at = {word: index for index, word in enumerate({w: 0 for r in shown for w in r})}
        said_at = {word: index for index, word in enumerate({w: 0 for f in forms for w in f})}
        pairs = process.cdist(list(said_at), list(shown_at), scorer=fuzz.ratio, dtype=np.float64)
        flat = np.fromiter((shown_at[w] for r in shown for w in r), dtype=np.intp)
        starts = np.cumsum([0] + [len(r) for r in shown[:-1]], dtype=np.intp)
        # Each word said against each reading's closest word: (words said, readings).
        closest = np.maximum.reduceat(pairs[:, flat], starts, axis=1)
        joined = process.cdist(
            ["".join(form) for form in forms],
            ["".join(r) for r in shown],
            scorer=fuzz.ratio,
            dtype=np.float64,
        )
        for index, form in enumerate(forms):
            total = closest[said_at[form[0]]].copy()
            for word in form[1:]:
                total += closest[said_at[word]]
            figures[index, worded] = np.maximum(total / len(form), joined[index])
    return figures


def _holds(reading: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """Whether `words` is a run of whole words of `reading`."""
    size = len(words)
    return any(reading[i : i + size] == words for i in range(len(reading) - size + 1))
