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
# "turn on X", "switch X off", "enable X", "uncheck X": a switch or checkbox to set.
ENGLISH_TURN = frozenset({"turn", "switch"})
ENGLISH_SET_ON = frozenset({"enable", "activate", "check", "tick"})
ENGLISH_SET_OFF = frozenset({"disable", "deactivate", "uncheck", "untick"})
# "go to X", "switch to X", "change X": the tab, row or control X, tapped. ("show me X" stays
# the planner's: it asks for what a screen shows, rarely for a control by its name.)
ENGLISH_GO_TO = (("go", "to"), ("switch", "to"), ("change",))
# What a place is called after its name ("the news tab", "the Download folder"): dropped when
# the name alone is a control's label.
ENGLISH_PLACE_WORDS = frozenset({"tab", "folder", "page", "screen", "section"})
# A call to whoever the screen is about: "call this number", "call him".
ENGLISH_CALL_THIS = frozenset({("this", "number"), ("him",), ("her",), ("them",), ("this",),
                               ("it",), ("this", "contact"), ("the", "number")})  # fmt: skip
# The words a call control's label says ("Dial number", "Call contact").
CALL_WORDS = ("call", "dial")
# Amharic answers to a dialog whose buttons are in English: said alone, they name the button.
AMHARIC_ANSWERS = {
    "አዎ": ("yes",),
    "እሺ": ("ok", "okay"),
    "አይ": ("no",),
    "ፍቀድ": ("allow",),
    "ከልክል": ("deny", "don't allow"),
}
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

# Read, never listened for: everyday phrasings a transcript from a remote transcriber carries
# ("search for pizza", "delete the draft", "send the message"), which the planner reads
# (`intents`) but the offline grammar does not hear (it is built from the words above only).
ENGLISH_SEARCH = "search"
ENGLISH_DELETE = ("delete", "remove", "clear")
# "make a call to mom": the words before a name that mean "call".
ENGLISH_CALL_PHRASES = (
    ("make", "a", "call", "to"), ("make", "a", "phone", "call", "to"), ("place", "a", "call", "to"),
)  # fmt: skip
# What may follow "send" and still mean what is already typed: "send it", "send the message".
ENGLISH_SEND_IT = (
    ("it",), ("this",), ("that",), ("message",), ("the", "message"), ("this", "message"),
    ("my", "message"),
)  # fmt: skip
# What may follow "delete" and name no item: the control that deletes what is shown.
ENGLISH_IT = (("it",), ("this",), ("that",))
# "type X and send": the words that end a dictation and send it.
ENGLISH_AND_SEND = (
    ("and", "send"), ("and", "send", "it"), ("then", "send"), ("then", "send", "it"),
)  # fmt: skip
# Courtesy around a command, said before its verb or after what it names: never part of a name.
ENGLISH_POLITE_OPENINGS = (("please",), ("can", "you"), ("could", "you"), ("would", "you"))
ENGLISH_POLITE_ENDINGS = (("please",), ("for", "me"))

# Amharic verbs as a transcript may spell them: the imperative to a man (the grammar's), to a
# woman, to several or politely, and the jussive of respect ("ይላኩ"). Compared folded, so a
# homophone spelling (ፃፍ, ሠርዝ) is the same verb. Never a negative ("አትሰርዝ", don't delete).
AMHARIC_FORMS = {
    "open": ("ክፈት", "ክፈቺ", "ክፈቱ", "ይክፈቱ"),
    "tap": ("ንካ", "ንኪ", "ንኩ", "ይንኩ", "ጫን", "ጫኚ", "ጫኑ", "ይጫኑ"),
    "call": ("ደውል", "ደውዪ", "ደውይ", "ደውሉ", "ይደውሉ"),
    "send": ("ላክ", "ላኪ", "ላኩ", "ይላኩ"),
    "delete": ("ሰርዝ", "ሰርዢ", "ሰርዙ", "ይሰርዙ"),
    "erase": ("አጥፋ", "አጥፊ", "አጥፉ", "ያጥፉ"),  # also "turn off": its control must say it
    "on": ("አብራ", "አብሪ", "አብሩ", "ያብሩ"),  # "turn on" (a light, a switch): "X አብራ"
    "search": ("ፈልግ", "ፈልጊ", "ፈልጉ", "ይፈልጉ", "ፈልግልኝ", "ፈልጊልኝ", "ፈልጉልኝ", "ይፈልጉልኝ"),
    "write": ("ጻፍ", "ጻፊ", "ጻፉ", "ይጻፉ"),
    "back": ("ተመለስ", "ተመለሺ", "ተመለሱ", "ይመለሱ"),
}
AMHARIC_BACKWARDS = ("ወደ", "ኋላ")  # "ወደ ኋላ ተመለስ", go back
# The verb with "it" as its object: "ላከው", send it; "ሰርዘው", delete it.
AMHARIC_IT_FORMS = {
    "send": ("ላከው", "ላኪው", "ላኩት", "ይላኩት"),
    "delete": ("ሰርዘው", "ሰርዢው", "ሰርዙት", "ይሰርዙት"),
    "erase": ("አጥፋው", "አጥፊው", "አጥፉት", "ያጥፉት"),
}
# What may stand before ላክ and still mean what is already typed: "this", "it", "the message".
AMHARIC_THIS = (("ይህን",), ("ይሄን",), ("እሱን",), ("ያንን",))
AMHARIC_THE_MESSAGE = (("መልእክቱን",), ("መልእክቴን",), ("መልእክት",), ("ይህን", "መልእክት"))
# "X ብለህ ጻፍ": write, saying X. The word that closes the text, by whom it is said to.
AMHARIC_SAYING = ("ብለህ", "ብለሽ", "ብለው", "ብላችሁ")
# "X ጻፍና ላክ", "X ጽፈህ ላክ": write X and send (the verb with "and", or its gerund).
AMHARIC_WRITE_AND = ("ጻፍና", "ጻፊና", "ጻፉና", "ጽፈህ", "ጽፈሽ", "ጽፈው", "ጽፋችሁ")
AMHARIC_PHONE = "ስልክ"  # "ለአበበ ስልክ ደውል": call Abebe on the phone
AMHARIC_POLITE = ("እባክህ", "እባክሽ", "እባክዎ", "እባክዎን", "እባካችሁ")  # please

# What a field for a search says (its label, id or class, in either language), and what a
# control that deletes an item says ("Remove" beside "Milk"): whole words (`labels`).
SEARCH_WORDS = ("search", "ፈልግ", "ፍለጋ", "ይፈልጉ")
DELETE_WORDS = ("delete", "remove", "clear", "ሰርዝ", "አጥፋ")
