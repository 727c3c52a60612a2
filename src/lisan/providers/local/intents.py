"""What a transcript asks for (`intent_of`): the offline grammar's commands, and the everyday
phrasings a remote transcriber's text carries, in English (the verb first) and Amharic (the
verb last). The planner (`planner`) turns an intent into steps on the screen; the second ear
(`hearing`) compares two transcripts by their intents.

- A transcript may carry capitals and punctuation ("Search for pizza.", "ፒዛ ፈልግ።"): words
  are compared without the punctuation at their edges, English ones case-folded, Amharic ones
  folded (`core.text.fold`: a homophone spelling, ፃፍ or ሠርዝ, is the same verb). What is to be
  typed keeps its case and inner punctuation; a sentence's closing mark is dropped.
- Courtesy is no name: "please", "can you" before the verb, "please" or "for me" after what it
  names (never inside dictated text), እባክህ and its forms at either end.
- English: open / tap / call (also "make a call to X") / scroll / back / home as the grammar
  says them; "go to X", "switch to X" (tap X); "turn on / off X", "turn X on / off", "enable /
  disable X", "check / uncheck X" (set a switch); "search [for] X"; "delete / remove / clear
  X" (and "delete it"); "send it", "send the message" (the send control, not dictation of
  "the message"); "type X", "write X"; "send X", "type X and send" (type, then send).
- Amharic: the grammar's commands, with each verb also in its forms to a woman, to several and
  of respect (`vocabulary.AMHARIC_FORMS`); "X ፈልግ" (search); "X ሰርዝ", "X አጥፋ" (delete);
  "X አብራ" (turn on); "ላከው", "መልእክቱን ላክ" (send it); "X ጻፍ", "X ብለህ ጻፍ" (type X);
  "X ብለህ ላክ", "X ጻፍና ላክ" (type X and send). A bare "ጻፍ" is the offline recogniser's word
  for a dictation it heard but cannot transcribe (`dictate`). "X ላክ" alone is read as
  nothing: "send X" might mean the text X or the thing X.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lisan.core.locale import Locale
from lisan.core.text import fold
from lisan.providers.local import vocabulary as v
from lisan.screen.actions import SCROLL_DIRECTIONS


@dataclass(frozen=True, slots=True)
class Intent:
    # open, tap, call, send, delete, search, scroll, back, home, type, dictate, set
    action: str
    words: tuple[str, ...] = ()  # the name, label or text it names
    direction: str | None = None  # scroll: up, down...; set: on or off
    # delete: the verb said, which its control's label must say ("remove" for "Remove");
    # tap: "go", "switch" or "change" when said so, which only a label's whole words
    # may answer (a look-alike of "my latest chats" is no place to go);
    # search: the verb, which with the words may be a control's whole label ("Search contacts")
    verb: str | None = None


# Marks a transcriber writes at a word's edges: sentence ends, commas, quotes, brackets, in
# Latin and Ethiopic script.
_EDGE_MARKS = ".,;:!?¡¿\"'“”\u2018\u2019«»()[]…።፣፤፥፦፧፨"


def intent_of(transcript: str, language: Locale) -> Intent | None:
    """What a transcript asks for; None for nothing the planner reads. Two transcripts that ask
    for the same thing ("press the save button", "tap save") have the same intent."""
    said = _Said.of(transcript, language)
    return _amharic(said) if language is Locale.AM_ET else _english(said)


def bare_words(transcript: str, language: Locale) -> tuple[str, ...]:
    """The transcript's words as a name is read: without the punctuation at their edges."""
    return _Said.of(transcript, language).bare


@dataclass(frozen=True, slots=True)
class _Said:
    """A transcript's words three ways: as said (`raw`, for text to type: a sentence's closing
    mark dropped), as shown (`bare`, for a name: no edge punctuation) and as compared (`keys`:
    also folded). Words that are only punctuation are dropped."""

    raw: tuple[str, ...]
    bare: tuple[str, ...]
    keys: tuple[str, ...]

    @classmethod
    def of(cls, transcript: str, language: Locale) -> _Said:
        raw: list[str] = []
        bare: list[str] = []
        for word in transcript.split():
            if key := word.strip(_EDGE_MARKS):
                raw.append(word)
                bare.append(key)
        if raw:
            raw[-1] = raw[-1].rstrip(_EDGE_MARKS)
        fold_key = fold if language is Locale.AM_ET else str.casefold
        return cls(tuple(raw), tuple(bare), tuple(fold_key(word) for word in bare))

    def __getitem__(self, part: slice) -> _Said:
        return _Said(self.raw[part], self.bare[part], self.keys[part])

    def __len__(self) -> int:
        return len(self.keys)

    def without(self, dropped: frozenset[str]) -> _Said:
        """The words whose key is not in `dropped`."""
        kept = [i for i, key in enumerate(self.keys) if key not in dropped]
        return _Said(*(tuple(words[i] for i in kept) for words in (self.raw, self.bare, self.keys)))


Words = tuple[tuple[str, ...], ...]


def _trimmed(said: _Said, openings: Words, endings: Words) -> _Said:
    """`said` without the courtesy at its start (`openings`) and end (`endings`), as long as
    something is left."""
    changed = True
    while changed:
        changed = False
        for words in openings:
            if said.keys[: len(words)] == words and len(said) > len(words):
                said, changed = said[len(words) :], True
        for words in endings:
            if len(said) > len(words) and said.keys[-len(words) :] == words:
                said, changed = said[: -len(words)], True
    return said


# English -------------------------------------------------------------------------------------


def _english(said: _Said) -> Intent | None:
    said = _trimmed(said, v.ENGLISH_POLITE_OPENINGS, ())
    if not said:
        return None
    head, keys = said.keys[0], said.keys
    plain = _trimmed(said, (), v.ENGLISH_POLITE_ENDINGS)  # what names something, not dictation
    verbs = v.ENGLISH_VERBS
    if plain.keys in v.ENGLISH_BACK:
        return Intent("back")
    if plain.keys in v.ENGLISH_HOME:
        return Intent("home")
    if len(plain) < 2:  # "tap for me" names a "For me" tab: courtesy is never all a name says
        plain = said
    rest = _content(plain.keys[1:])
    if head in verbs["open"] and rest:
        return Intent("open", rest)
    if head in verbs["tap"] and rest:
        return Intent("tap", rest)
    if head in verbs["call"] and rest:
        return Intent("call", rest)
    for phrase in v.ENGLISH_CALL_PHRASES:
        if plain.keys[: len(phrase)] == phrase and (name := _content(plain.keys[len(phrase) :])):
            return Intent("call", name)
    if (setting := _setting(plain.keys)) is not None:
        return setting
    for going in v.ENGLISH_GO_TO:
        if plain.keys[: len(going)] == going and (place := _content(plain.keys[len(going) :])):
            return Intent("tap", place, verb=going[0])
    if head == "scroll":
        direction = next((w for w in keys[1:] if w in SCROLL_DIRECTIONS), None)
        return Intent("scroll", direction=direction)
    if head == v.ENGLISH_SEARCH:
        query = plain[2:] if plain.keys[1:2] == ("for",) else plain[1:]
        return Intent("search", query.raw, verb=head) if query else None
    if head in v.ENGLISH_DELETE:
        item = plain.keys[1:]
        return Intent("delete", () if item in v.ENGLISH_IT else item, verb=head)
    if head in v.DICTATION_VERBS - {"send"} and len(keys) > 1:
        for ending in v.ENGLISH_AND_SEND:
            if len(keys) > len(ending) + 1 and keys[-len(ending) :] == ending:
                return Intent("send", said.raw[1 : -len(ending)])
        return Intent("type", said.raw[1:])
    if head == "send":
        if plain.keys[1:] == () or plain.keys[1:] in v.ENGLISH_SEND_IT:
            return Intent("send")
        return Intent("send", said.raw[1:])
    return None


def _setting(keys: tuple[str, ...]) -> Intent | None:
    """A switch or checkbox set on or off: "turn on X", "turn X off", "switch on X", "enable
    X", "check X", "uncheck X"."""
    head, state = keys[0], None
    name: tuple[str, ...] = ()
    if head in v.ENGLISH_TURN and len(keys) > 2:
        if keys[1] in ("on", "off"):
            state, name = keys[1], keys[2:]
        elif keys[-1] in ("on", "off"):
            state, name = keys[-1], keys[1:-1]
    elif head in v.ENGLISH_SET_ON | v.ENGLISH_SET_OFF:
        state, name = ("on" if head in v.ENGLISH_SET_ON else "off"), keys[1:]
    name = _content(name)
    return Intent("set", name, direction=state) if state and name else None


def _content(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(w for w in words if w not in v.ENGLISH_FILLERS)


# Amharic -------------------------------------------------------------------------------------


def _folded(words: Iterable[str]) -> frozenset[str]:
    return frozenset(fold(word) for word in words)


_AMHARIC_KINDS = {kind: _folded(forms) for kind, forms in v.AMHARIC_FORMS.items()}
_AMHARIC_IT = {kind: _folded(forms) for kind, forms in v.AMHARIC_IT_FORMS.items()}
_THIS = frozenset(tuple(fold(w) for w in words) for words in v.AMHARIC_THIS)
_THE_MESSAGE = frozenset(tuple(fold(w) for w in words) for words in v.AMHARIC_THE_MESSAGE)
_SAYING = _folded(v.AMHARIC_SAYING)
_WRITE_AND = _folded(v.AMHARIC_WRITE_AND)
_POLITE = tuple((fold(word),) for word in v.AMHARIC_POLITE)
_OBJECT, _TO, _PHONE = fold(v.AMHARIC_OBJECT), fold(v.AMHARIC_TO), fold(v.AMHARIC_PHONE)
_TOWARDS, _UP, _DOWN = fold(v.AMHARIC_TOWARDS), fold(v.AMHARIC_UP), fold(v.AMHARIC_DOWN)
_HOME, _BACKWARDS = fold(v.AMHARIC_HOME[0]), tuple(fold(w) for w in v.AMHARIC_BACKWARDS)
_SEND, _DELETE, _WRITE = fold(v.AMHARIC_SEND), fold(v.AMHARIC_DELETE), fold(v.AMHARIC_WRITE)


def _kind(word: str, kinds: dict[str, frozenset[str]]) -> str | None:
    return next((kind for kind, forms in kinds.items() if word in forms), None)


def _amharic(said: _Said) -> Intent | None:
    said = _trimmed(said, _POLITE, _POLITE)
    if not said:
        return None
    keys = said.keys
    if _kind(keys[-1], _AMHARIC_KINDS) == "back" and keys[:-1] in {(), _BACKWARDS}:
        return Intent("back")
    if keys[0] == _TOWARDS and len(keys) > 1:
        if keys[1] in {_UP, _DOWN}:
            return Intent("scroll", direction="up" if keys[1] == _UP else "down")
        if keys[1] == _HOME:
            return Intent("home")
    if keys == (_SEND,):
        return Intent("send")
    if keys == (_DELETE,):
        return Intent("delete", verb=v.AMHARIC_DELETE)
    if keys == (_WRITE,):
        return Intent("dictate")
    verb, rest = keys[-1], said[:-1].without(frozenset({_OBJECT}))
    kind = _kind(verb, _AMHARIC_KINDS)
    if kind is None and (kind := _kind(verb, _AMHARIC_IT)) is not None:
        # "ላከው", "ሰርዘው": the verb with "it"; nothing else may be named beside it.
        return _amharic_it(kind) if not rest or rest.keys in _THIS | _THE_MESSAGE else None
    if kind is None or kind == "back":
        return None
    if not rest:
        return _amharic_it(kind) if kind in {"send", "delete", "erase"} else None
    if kind == "open":
        return Intent("open", rest.bare)
    if kind == "tap":
        return Intent("tap", rest.bare)
    if kind == "on":
        return Intent("set", rest.bare, direction="on")
    if kind == "call":
        name = rest.without(frozenset({_TO}))
        if len(name) > 1 and name.keys[-1] == _PHONE:
            name = name[:-1]
        return Intent("call", name.bare) if name else None
    if kind == "search":
        return Intent("search", rest.raw, verb=v.AMHARIC_FORMS["search"][0])
    if kind in {"delete", "erase"}:
        canonical = v.AMHARIC_FORMS[kind][0]
        item = () if rest.keys in _THIS else rest.bare
        return Intent("delete", item, verb=canonical)
    if kind == "write":
        return Intent("type", _dictated(rest).raw)
    # send: what is already typed ("መልእክቱን ላክ"), or a text said with "saying" or "write and"
    if rest.keys in _THIS | _THE_MESSAGE:
        return Intent("send")
    if len(rest) > 1 and rest.keys[-1] in _SAYING | _WRITE_AND:
        return Intent("send", _dictated(rest[:-1]).raw)
    return None


def _amharic_it(kind: str) -> Intent:
    if kind == "send":
        return Intent("send")
    return Intent("delete", verb=v.AMHARIC_FORMS[kind][0])


def _dictated(text: _Said) -> _Said:
    """The text to type, without the "saying" that closes it ("ሰላም ብለህ" is "ሰላም")."""
    if len(text) > 1 and text.keys[-1] in _SAYING:
        return text[:-1]
    return text
