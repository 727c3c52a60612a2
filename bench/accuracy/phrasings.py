"""Everyday phrasings of commands, written as a remote transcriber writes them (capitals,
punctuation, courtesy, Amharic words fused), each with the plan it must give on a screen of
`cases.SCREENS` or of the few screens here; `()` for a command that must be refused (a target
absent or ambiguous, a phrasing that could mean two things). Written with the planner's
reading of them (`lisan.providers.local.intents`): a regression set, not a held-out study.
"""

from __future__ import annotations

from bench.accuracy.cases import BenchScreen, Step

# A shop's cart: a search field, and rows that each hold their item and its own remove control;
# its Amharic twin; an account page; a list whose only delete control is the toolbar's.
SCREENS = {
    "shop": BenchScreen(
        "com.example.shop",
        """[n1] FrameLayout
  [n2] EditText "Search products" {editable}
  [n3] RecyclerView {scrollable}
    [n4] LinearLayout
      [n5] TextView "Milk" {clickable}
      [n6] TextView "2 x 30 ETB"
      [n7] ImageButton desc="Remove" {clickable}
    [n8] LinearLayout
      [n9] TextView "Bread" {clickable}
      [n10] ImageButton desc="Remove" {clickable}
  [n11] Button "Checkout" {clickable}""",
    ),
    "shop_am": BenchScreen(
        "com.example.shop",
        """[n1] FrameLayout
  [n2] EditText "ፍለጋ" {editable}
  [n3] RecyclerView {scrollable}
    [n4] LinearLayout
      [n5] TextView "ወተት" {clickable}
      [n6] Button "ሰርዝ" {clickable}
    [n7] LinearLayout
      [n8] TextView "ዳቦ" {clickable}
      [n9] Button "ሰርዝ" {clickable}""",
    ),
    "account": BenchScreen(
        "com.android.settings",
        """[n1] FrameLayout
  [n2] TextView "Account"
  [n3] Button "Change password" {clickable}
  [n4] Button "Clear history" {clickable}
  [n5] Button "Delete account" {clickable}""",
    ),
    "notes": BenchScreen(
        "com.example.notes",
        """[n1] FrameLayout
  [n2] Toolbar
    [n3] TextView "Notes"
    [n4] ImageButton desc="Delete" {clickable}
  [n5] RecyclerView {scrollable}
    [n6] TextView "Groceries" {clickable}
    [n7] TextView "Ideas" {clickable}""",
    ),
}
GRANTED = ("com.example.shop", "com.example.notes")


def _tap(target: str) -> tuple[Step, ...]:
    return (("TAP", target),)


def _typed(field: str, send: str | None = None) -> tuple[Step, ...]:
    return (("TEXT_INPUT", field),) + ((("TAP", send),) if send else ())


OPEN: tuple[Step, ...] = (("OPEN_APP", None),)
REFUSED: tuple[Step, ...] = ()

# (screen, said, steps)
ENGLISH = [
    ("contacts", "search for almaz", _typed("n2")),
    ("contacts", "Search for Dawit.", _typed("n2")),
    ("maps", "search for coffee", _typed("n2")),
    ("maps", "Search hotels near me, please.", _typed("n2")),
    ("shop", "search for milk", _typed("n2")),
    ("contacts", "search contacts", _tap("n2")),  # the field's own label: it is tapped
    ("chat", "search for abebe", REFUSED),  # a message field is no search field
    ("gallery", "search for the beach", REFUSED),  # a search button, no field
    ("chat", "send the message", _tap("n4")),
    ("chat", "send this", _tap("n4")),
    ("chat", "Send it, please.", _tap("n4")),
    ("chat", "type see you soon and send", _typed("n3", "n4")),
    ("chat", "Write thanks and send it.", _typed("n3", "n4")),
    ("chat", "call abebe please", _tap("n6")),
    ("chat", "make a call to kebede", _tap("n7")),
    ("contacts", "please call hanna", _tap("n6")),
    ("chat", "Could you call Abebe for me?", _tap("n6")),
    ("chat", "call bekele please", REFUSED),  # not on the screen
    ("launcher", "open Photos", OPEN),
    ("launcher", "Open the Maps app.", OPEN),
    ("launcher", "open google", REFUSED),  # Maps, Photos and Gmail are all Google's
    ("shop", "delete milk", _tap("n7")),
    ("shop", "remove the bread", _tap("n10")),
    ("shop", "remove milk from the cart", _tap("n7")),
    ("shop", "delete eggs", REFUSED),
    ("account", "delete my account", _tap("n5")),
    ("account", "Clear history.", _tap("n4")),
    ("notes", "delete it", _tap("n4")),
    ("notes", "delete groceries", REFUSED),  # the toolbar's Delete acts on the selection
    ("chat", "delete abebe", REFUSED),  # no control deletes Abebe; tapping Abebe opens him
    ("settings", "Tap Bluetooth.", _tap("n5")),
    ("settings", "please go back", (("BACK", None),)),
    ("mail", "Could you tap archive?", _tap("n7")),
]
AMHARIC = [
    ("chat_am", "ላከው", _tap("n4")),
    ("chat_am", "መልእክቱን ላክ", _tap("n4")),
    ("chat_am", "ይህን ላኪ።", _tap("n4")),
    ("chat_am", "ሰላም ብለህ ላክ", _typed("n3", "n4")),
    ("chat_am", "ሰላም ጻፍና ላክ", _typed("n3", "n4")),
    ("chat_am", "ደህና ነኝ ብለህ ጻፍ", _typed("n3")),
    ("chat_am", "ለአበበ ደውል።", _tap("n6")),
    ("chat_am", "አበበን ደውይ", _tap("n6")),
    ("chat_am", "እባክህ ከበደን ንካ", _tap("n7")),
    ("chat_am", "ቤተሰብ ይንኩ", _tap("n8")),
    ("chat_am", "ፒዛ ፈልግ", REFUSED),  # no search field
    ("shop_am", "ወተት ፈልግ።", _typed("n2")),
    ("shop_am", "ዳቦ ሰርዝ", _tap("n9")),
    ("shop_am", "ወተትን አጥፋ", _tap("n6")),
    ("shop_am", "እንቁላል ሰርዝ", REFUSED),
    ("chat_am", "ሰርዘው", _tap("n9")),
    ("chat_am", "ሰላም ላክ", REFUSED),  # "send 'hello'" or "send greetings"
    ("chat_am", "አትሰርዝ", REFUSED),  # don't delete
    ("launcher", "ቴሌግራምን ክፈት።", OPEN),
    ("settings_am", "ወደ ኋላ ተመለስ", (("BACK", None),)),
]
