"""The offline provider's command words, per language: the verbs its grammar listens for, the
generic words around a name ("the", "button"), and what a send or delete button says. The
grammar (`grammar`) is built from them and the planner (`planner`) reads a transcript with them,
so both always agree on what a word means.

There are no number words: a label's digits are said as espeak-ng and cmudict read them, and no
command takes a count.
"""

from __future__ import annotations

from lisan.core.text import FUNCTION_WORDS

# English: the verb first. Each action's verbs, the first the one docs/offline-provider.md names.
ENGLISH_VERBS = {
    "open": ("open", "launch", "start"),
    "tap": ("tap", "press", "click", "select", "touch"),
    "call": ("call", "dial"),
    "send": ("send",),
    "scroll": ("scroll",),
}
# "type ..." and "send ...": dictation, heard in a second pass (`recognizer.Recognizer.dictate`).
DICTATION_VERBS = frozenset({"type", "send", "write"})
ENGLISH_BACK = (("go", "back"), ("back",))
ENGLISH_HOME = (("go", "home"), ("go", "to", "the", "home", "screen"))
# Words said around a name that name nothing themselves ("tap the send button").
ENGLISH_FILLERS = frozenset({"the", "a", "an", "on", "button", "app", "it", "to", "my"})
# Words too common to name a node alone, never listened for by themselves: the words that name
# nothing (`core.text`'s function words), the fillers, and words many labels share ("Your
# location" is said whole, never "your").
COMMON_WORDS = FUNCTION_WORDS | ENGLISH_FILLERS | {
    "your", "you", "our", "here", "there", "by", "all", "new", "more", "now",
}  # fmt: skip

# Amharic: Ge'ez words, the verb last, each with its meaning for the planner.
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

# What the button of "send it" / ላክ and of ሰርዝ says, in either language: a whole word of its
# label (`planner`), so "Send message" is one and "Unsend" is not.
SEND_LABELS = ("send", AMHARIC_SEND)
DELETE_LABELS = ("delete", AMHARIC_DELETE)
