"""The offline planner reads the everyday phrasings people say, in English and Amharic, as well
as the grammar's commands: "search for X", "delete X", "send it", "type X and send", "call X
please", "open Photos". Each becomes the one plan it means, checked by the plan rules like any
planner's; a phrasing that could mean two things, or a target that is absent or stands twice,
is asked or declined, never acted on."""

from __future__ import annotations

from typing import Any

import pytest

from lisan.core.locale import Locale
from lisan.plans.rules import validate_plan
from lisan.plans.safe import PlanRejected
from lisan.providers.base import Screen
from lisan.providers.local import planner
from lisan.providers.local.planner import Intent, intent_of
from lisan.screen.viewtree import ViewTree
from tests.fixtures.offline import CHAT, CHAT_AM

EN, AM = Locale.EN_US, Locale.AM_ET
CHAT_APP, SHOP_APP = "org.telegram.messenger", "com.example.shop"
SETTINGS_APP = "com.android.settings"
PHOTOS, MAPS = "com.google.android.apps.photos", "com.google.android.apps.maps"
LAUNCHER = "com.android.launcher3"

# A shop's cart: a search field, and rows that each hold their item and its own remove control.
SHOP = """[n1] FrameLayout
  [n2] EditText "Search products" {editable}
  [n3] RecyclerView {scrollable}
    [n4] LinearLayout
      [n5] TextView "Milk" {clickable}
      [n6] TextView "2 x 30 ETB"
      [n7] ImageButton desc="Remove" {clickable}
    [n8] LinearLayout
      [n9] TextView "Bread" {clickable}
      [n10] ImageButton desc="Remove" {clickable}
  [n11] Button "Search history" {clickable}"""
SHOP_AM = """[n1] FrameLayout
  [n2] EditText "ፍለጋ" {editable}
  [n3] RecyclerView {scrollable}
    [n4] LinearLayout
      [n5] TextView "ወተት" {clickable}
      [n6] Button "ሰርዝ" {clickable}
    [n7] LinearLayout
      [n8] TextView "ዳቦ" {clickable}
      [n9] Button "ሰርዝ" {clickable}"""
ACCOUNT = """[n1] FrameLayout
  [n2] TextView "Account"
  [n3] Button "Change password" {clickable}
  [n4] Button "Delete account" {clickable}
  [n5] Button "መለያ ሰርዝ" {clickable}"""
# A list whose only delete control is the toolbar's: it deletes what is selected, whatever
# that is, so it is no row's control.
NOTES = """[n1] FrameLayout
  [n2] Toolbar
    [n3] TextView "Notes"
    [n4] ImageButton desc="Delete" {clickable}
  [n5] RecyclerView {scrollable}
    [n6] TextView "Groceries" {clickable}
    [n7] TextView "Ideas" {clickable}"""


def _plan(
    transcript: str,
    tree: str,
    language: Locale = EN,
    package: str = CHAT_APP,
    apps: tuple[str, ...] = (),
    *,
    granted: bool = True,
) -> dict[str, Any]:
    screen = Screen(package, tree, granted=granted)
    raw: dict[str, Any] = planner.plan(transcript, screen, language, [package, *apps])
    return raw


def _steps(raw: dict[str, Any]) -> list[tuple[str, str | None, str | None, bool]]:
    return [
        (s["action_type"], s["target_node_id"], s["payload"], s["is_destructive"])
        for s in raw["steps"]
    ]


def _answer(raw: dict[str, Any], tree: str, package: str = CHAT_APP) -> str:
    """What the command would answer with a confident transcript: the plan rules' reading."""
    if not raw["steps"]:
        return f"REJECTED {raw['reason']}"
    try:
        safe = validate_plan(raw, ViewTree(tree), {package}, current_package=package)
    except PlanRejected as rejected:
        return f"REJECTED {rejected.reason}"
    asked = safe.requires_confirmation(transcriber_confident=True)
    return "CONFIRMATION_REQUIRED" if asked else "ACCEPTED"


def _declined(raw: dict[str, Any], reason: str) -> None:
    assert raw["steps"] == []
    assert raw["reason"] == reason


# --- A transcriber's capitals, punctuation and courtesy -------------------------------------


@pytest.mark.parametrize(
    ("written", "grammar", "language"),
    [
        ("Search for pizza.", "search for pizza", EN),
        ("Tap Settings!", "tap settings", EN),
        ("Call Abebe, please.", "call abebe", EN),
        ("Could you please go back?", "go back", EN),
        ("Send it.", "send it", EN),
        ("ፒዛ ፈልግ።", "ፒዛ ፈልግ", AM),
        ("እባክህ አበበ ንካ።", "አበበ ንካ", AM),
        ("ሠርዝ", "ሰርዝ", AM),  # a homophone spelling of the same verb
    ],
)
def test_capitals_punctuation_and_courtesy_read_as_the_plain_command(
    written: str, grammar: str, language: Locale
) -> None:
    """A remote transcript's capitals, closing marks, commas and "please" change nothing."""
    assert intent_of(written, language) == intent_of(grammar, language)
    assert intent_of(written, language) is not None


def test_a_label_of_courtesy_words_is_still_named() -> None:
    """Courtesy is dropped only around a name, never when it is all the name says."""
    tree = """[n1] FrameLayout
  [n2] Button "For me" {clickable}
  [n3] Button "Please" {clickable}"""
    assert _steps(_plan("tap for me", tree)) == [("TAP", "n2", None, False)]
    assert _steps(_plan("Tap please.", tree)) == [("TAP", "n3", None, False)]


def test_dictated_text_keeps_its_case_punctuation_and_courtesy() -> None:
    """What is to be typed is the user's own: only a sentence's closing mark is dropped."""
    assert intent_of("Type Hello, Abebe.", EN) == Intent("type", ("Hello,", "Abebe"))
    assert intent_of("type hello please", EN) == Intent("type", ("hello", "please"))
    assert intent_of("please type please call me", EN) == Intent("type", ("please", "call", "me"))


# --- "search for X": the screen's one search field ------------------------------------------


@pytest.mark.parametrize(
    ("transcript", "tree", "language", "field", "typed"),
    [
        ("search for milk", SHOP, EN, "n2", "milk"),
        ("search milk", SHOP, EN, "n2", "milk"),
        ("Search for whole milk please.", SHOP, EN, "n2", "whole milk"),
        ("ወተት ፈልግ", SHOP_AM, AM, "n2", "ወተት"),
        ("ወተት ፈልጊ።", SHOP_AM, AM, "n2", "ወተት"),
        ("ወተት ፈልግልኝ", SHOP_AM, AM, "n2", "ወተት"),
    ],
)
def test_search_types_the_words_into_the_search_field_read_back_first(
    transcript: str, tree: str, language: Locale, field: str, typed: str
) -> None:
    """The words go into the field whose label says search, as any dictation: read back
    before anything is typed."""
    raw = _plan(transcript, tree, language, SHOP_APP)
    assert _steps(raw) == [("TEXT_INPUT", field, typed, True)]
    assert raw["needs_confirmation"] is False
    assert _answer(raw, tree, SHOP_APP) == "CONFIRMATION_REQUIRED"


@pytest.mark.parametrize(
    "line",
    [
        '[search_src_text] EditText "" {editable}',  # its id says search
        "[n9] SearchView$SearchAutoComplete {editable}",  # its class does
        '[n9] EditText desc="Search" {editable}',
    ],
)
def test_a_field_whose_id_or_class_says_search_is_the_search_field(line: str) -> None:
    tree = f'[n1] FrameLayout\n  [n2] TextView "Shop"\n  {line}'
    field = line.split("]")[0].strip("[ ")
    raw = _plan("search for milk", tree, package=SHOP_APP)
    assert _steps(raw) == [("TEXT_INPUT", field, "milk", True)]


@pytest.mark.parametrize(
    ("transcript", "tree", "language"),
    [
        ("search for pizza", CHAT, EN),  # a message field is no search field
        ("ፒዛ ፈልግ", CHAT_AM, AM),
        ("search for pizza", NOTES, EN),  # no field at all
    ],
)
def test_search_without_a_search_field_is_declined(
    transcript: str, tree: str, language: Locale
) -> None:
    """Typing the words into the only field there is would put a search into a message; the
    question "Type “pizza”?" could not say where it goes."""
    _declined(_plan(transcript, tree, language), "target_not_on_screen")


def test_search_with_two_search_fields_is_declined() -> None:
    tree = SHOP + '\n  [n12] EditText "Search stores" {editable}'
    _declined(_plan("search for milk", tree, package=SHOP_APP), "target_not_on_screen")


def test_search_that_is_a_controls_whole_label_names_that_control() -> None:
    """ "search products" beside a "Search products" field focuses the field (a tap on a
    field commits nothing); beside another control ("Search history") it may mean that control
    or a search for "history": asked, naming the control."""
    field = _plan("search products", SHOP, package=SHOP_APP)
    assert (_steps(field), field["needs_confirmation"]) == ([("TAP", "n2", None, False)], False)
    other = _plan("search history", SHOP, package=SHOP_APP)
    assert (_steps(other), other["needs_confirmation"]) == ([("TAP", "n11", None, False)], True)
    assert _answer(other, SHOP, SHOP_APP) == "CONFIRMATION_REQUIRED"


@pytest.mark.parametrize(("transcript", "language"), [("search", EN), ("search for", EN),
                                                      ("ፈልግ", AM)])  # fmt: skip
def test_search_for_nothing_is_nothing_to_do(transcript: str, language: Locale) -> None:
    _declined(_plan(transcript, SHOP, language, SHOP_APP), "nothing_to_do")


# --- "delete X": the control that deletes X, always asked ------------------------------------


@pytest.mark.parametrize(
    ("transcript", "language", "target"),
    [
        ("delete account", EN, "n4"),
        ("Delete my account.", EN, "n4"),
        ("መለያ ሰርዝ", AM, "n5"),
    ],
)
def test_delete_taps_the_control_that_says_the_verb_and_the_item(
    transcript: str, language: Locale, target: str
) -> None:
    raw = _plan(transcript, ACCOUNT, language, SETTINGS_APP)
    assert (_steps(raw), raw["needs_confirmation"]) == ([("TAP", target, None, False)], False)
    assert _answer(raw, ACCOUNT, SETTINGS_APP) == "CONFIRMATION_REQUIRED"  # the rules ask


@pytest.mark.parametrize(
    ("transcript", "tree", "language", "target"),
    [
        ("delete milk", SHOP, EN, "n7"),
        ("remove the bread", SHOP, EN, "n10"),
        ("remove milk from the cart", SHOP, EN, "n7"),
        ("Clear bread.", SHOP, EN, "n10"),
        ("ዳቦ ሰርዝ", SHOP_AM, AM, "n9"),
        ("ዳቦን አጥፋ", SHOP_AM, AM, "n9"),
        ("ወተትን ሰርዢ", SHOP_AM, AM, "n6"),
    ],
)
def test_delete_taps_the_delete_control_in_the_items_own_row_and_asks(
    transcript: str, tree: str, language: Locale, target: str
) -> None:
    """The one control saying delete, remove or clear in the row that holds the item."""
    raw = _plan(transcript, tree, language, SHOP_APP)
    assert (_steps(raw), raw["needs_confirmation"]) == ([("TAP", target, None, False)], True)
    assert _answer(raw, tree, SHOP_APP) == "CONFIRMATION_REQUIRED"


def test_delete_an_item_whose_own_label_says_remove_taps_it_and_asks() -> None:
    tree = '[n1] FrameLayout\n  [n2] Button "Remove account" {clickable}'
    raw = _plan("delete account", tree, package=SETTINGS_APP)
    assert (_steps(raw), raw["needs_confirmation"]) == ([("TAP", "n2", None, False)], True)


@pytest.mark.parametrize(
    ("transcript", "tree", "language"),
    [
        ("delete it", NOTES, EN),
        ("delete this", NOTES, EN),
        ("ሰርዝ", NOTES, AM),  # the grammar's word; a phone's buttons may be in English
        ("ይህን ሰርዝ", NOTES, AM),
        ("ሰርዘው", NOTES, AM),
    ],
)
def test_delete_it_taps_the_control_that_says_delete(
    transcript: str, tree: str, language: Locale
) -> None:
    raw = _plan(transcript, tree, language)
    assert (_steps(raw), raw["needs_confirmation"]) == ([("TAP", "n4", None, False)], False)
    assert _answer(raw, tree) == "CONFIRMATION_REQUIRED"


@pytest.mark.parametrize(
    ("transcript", "tree", "language"),
    [
        # the toolbar's Delete acts on whatever is selected, not on the row named
        ("delete groceries", NOTES, EN),
        ("delete ideas", NOTES, EN),
        # rows with no container of their own: the list holds every delete control
        ("delete milk", """[n1] FrameLayout
  [n2] RecyclerView {scrollable}
    [n3] TextView "Milk" {clickable}
    [n4] ImageButton desc="Remove" {clickable}
    [n5] TextView "Bread" {clickable}
    [n6] ImageButton desc="Remove" {clickable}""", EN),
        # the item stands twice: which row is meant is a guess
        ("delete milk", SHOP.replace('"Bread"', '"Milk"'), EN),
        # a row with two controls that delete
        ("delete milk", SHOP.replace('[n6] TextView "2 x 30 ETB"',
                                     '[n6] Button "Clear" {clickable}'), EN),
        # no control deletes anything: "delete abebe" never taps Abebe (that opens the chat)
        ("delete abebe", CHAT, EN),
        ("አበበ ሰርዝ", CHAT_AM, AM),
        ("remove eggs", SHOP, EN),  # no such item
        ("delete groceries", """[n1] LinearLayout
  [n2] TextView "Groceries"
  [n3] TextView "Ideas"
  [n4] Button "Delete" {clickable}""", EN),  # a page's control, no row's
    ],
    ids=["toolbar", "toolbar-2", "flat-list", "item-twice", "two-controls", "no-control",
         "no-control-am", "absent", "page"],
)  # fmt: skip
def test_delete_with_no_single_control_for_the_item_is_declined(
    transcript: str, tree: str, language: Locale
) -> None:
    _declined(_plan(transcript, tree, language, SHOP_APP), "target_not_on_screen")


def test_a_negative_is_no_delete() -> None:
    """ "አትሰርዝ" is "don't delete": no form of the verb the planner reads."""
    _declined(_plan("አትሰርዝ", NOTES, AM), "nothing_to_do")


# --- "send it": the send control, never dictation of "it" ------------------------------------


@pytest.mark.parametrize(
    ("transcript", "tree", "language"),
    [
        ("send it", CHAT, EN),
        ("send this", CHAT, EN),
        ("send the message", CHAT, EN),
        ("Send the message, please.", CHAT, EN),
        ("ላክ", CHAT_AM, AM),
        ("ላከው", CHAT_AM, AM),
        ("ላኪው", CHAT_AM, AM),
        ("መልእክቱን ላክ", CHAT_AM, AM),
        ("ይህን ላክ", CHAT_AM, AM),
        ("ይላኩ", CHAT_AM, AM),
    ],
)
def test_send_it_taps_the_send_control_and_the_rules_ask(
    transcript: str, tree: str, language: Locale
) -> None:
    raw = _plan(transcript, tree, language)
    assert (_steps(raw), raw["needs_confirmation"]) == ([("TAP", "n4", None, False)], False)
    assert _answer(raw, tree) == "CONFIRMATION_REQUIRED"  # a composed message is sent


def test_send_it_beside_a_control_only_like_send_is_asked() -> None:
    tree = '[n1] FrameLayout\n  [n2] TextView "Messages"\n  [n3] Button "Unsend" {clickable}'
    raw = _plan("send the message", tree)
    assert (_steps(raw), raw["needs_confirmation"]) == ([("TAP", "n3", None, False)], True)


def test_send_with_words_that_could_be_text_or_a_thing_is_nothing_to_do_in_amharic() -> None:
    """ "ሰላም ላክ" may be "send 'hello'" or "send greetings": neither typed nor tapped."""
    _declined(_plan("ሰላም ላክ", CHAT_AM, AM), "nothing_to_do")


# --- "type X and send": type, then the send control ------------------------------------------


@pytest.mark.parametrize(
    ("transcript", "tree", "language", "typed"),
    [
        ("type see you soon and send", CHAT, EN, "see you soon"),
        ("write See you soon! and send it", CHAT, EN, "See you soon!"),
        ("type on my way then send", CHAT, EN, "on my way"),
        ("send see you soon", CHAT, EN, "see you soon"),  # the grammar's own
        ("ሰላም ብለህ ላክ", CHAT_AM, AM, "ሰላም"),
        ("ደህና ነኝ ብለሽ ላኪ", CHAT_AM, AM, "ደህና ነኝ"),
        ("ሰላም ጻፍና ላክ", CHAT_AM, AM, "ሰላም"),
        ("ሰላም ጽፈህ ላክ", CHAT_AM, AM, "ሰላም"),
    ],
)
def test_type_and_send_types_then_taps_send_read_back_first(
    transcript: str, tree: str, language: Locale, typed: str
) -> None:
    raw = _plan(transcript, tree, language)
    assert _steps(raw) == [("TEXT_INPUT", "n3", typed, True), ("TAP", "n4", None, False)]
    assert _answer(raw, tree) == "CONFIRMATION_REQUIRED"


def test_what_is_sent_goes_into_the_message_field_never_a_search_field() -> None:
    tree = CHAT.replace('[n2] TextView "Chats"', '[n2] EditText "Search chats" {editable}')
    raw = _plan("type hello and send", tree)
    assert _steps(raw) == [("TEXT_INPUT", "n3", "hello", True), ("TAP", "n4", None, False)]


def test_type_and_send_beside_two_message_fields_is_declined() -> None:
    """ "To" and the message: the text could land in the wrong one and something else be
    sent."""
    tree = CHAT.replace('[n2] TextView "Chats"', '[n2] EditText "To" {editable}')
    _declined(_plan("type hello and send", tree), "target_not_on_screen")
    _declined(_plan("send hello", tree), "target_not_on_screen")


@pytest.mark.parametrize(
    ("transcript", "typed"),
    [("ሰላም ጻፍ", "ሰላም"), ("ደህና ነኝ ብለህ ጻፍ", "ደህና ነኝ"), ("ሰላም ጻፊ።", "ሰላም")],
)
def test_amharic_text_to_type_is_typed_read_back_first(transcript: str, typed: str) -> None:
    """A transcriber that writes Amharic gives the words; "ብለህ" (saying) closes them."""
    raw = _plan(transcript, CHAT_AM, AM)
    assert _steps(raw) == [("TEXT_INPUT", "n3", typed, True)]
    assert _answer(raw, CHAT_AM) == "CONFIRMATION_REQUIRED"


def test_the_offline_recognisers_bare_write_is_still_dictation_it_cannot_do() -> None:
    _declined(_plan("ጻፍ", CHAT_AM, AM), "dictation_unsupported")


# --- "call X": courtesy and Amharic's fused words --------------------------------------------


@pytest.mark.parametrize(
    ("transcript", "tree", "language"),
    [
        ("call abebe please", CHAT, EN),
        ("please call abebe", CHAT, EN),
        ("make a call to abebe", CHAT, EN),
        ("Make a phone call to Abebe.", CHAT, EN),
        ("ለ አበበ ደውል", CHAT_AM, AM),  # the grammar's own words
        ("ለአበበ ደውል", CHAT_AM, AM),  # "to" fused to the name, as a transcriber writes it
        ("አበበን ደውይ", CHAT_AM, AM),
        ("ለአበበ ስልክ ደውል", CHAT_AM, AM),
        ("እባክህ ለአበበ ይደውሉ", CHAT_AM, AM),
    ],
)
def test_call_taps_the_name_and_is_asked(transcript: str, tree: str, language: Locale) -> None:
    raw = _plan(transcript, tree, language)
    assert (_steps(raw), raw["needs_confirmation"]) == ([("TAP", "n6", None, True)], False)
    assert _answer(raw, tree) == "CONFIRMATION_REQUIRED"


@pytest.mark.parametrize(("transcript", "language"), [("call kebede please", EN),
                                                      ("ለከበደ ደውል", AM)])  # fmt: skip
def test_call_a_name_not_on_screen_is_declined(transcript: str, language: Locale) -> None:
    _declined(_plan(transcript, CHAT_AM if language is AM else CHAT, language),
              "target_not_on_screen")  # fmt: skip


def test_an_amharic_name_with_its_object_marker_fused_is_tapped_at_once() -> None:
    """ "አበበን ንካ" as a transcriber writes it names "አበበ" exactly, as "አበበ ን ንካ" does."""
    raw = _plan("አበበን ንካ", CHAT_AM, AM)
    assert (_steps(raw), raw["needs_confirmation"]) == ([("TAP", "n6", None, False)], False)


# --- "open Photos": the granted package by its name, never a launcher icon -------------------

HOME_SCREEN = """[n1] FrameLayout
  [n2] TextView "Photos" {clickable}
  [n3] TextView "Maps" {clickable}
  [n4] TextView "Gallery" {clickable}"""


@pytest.mark.parametrize(
    ("transcript", "language", "package"),
    [
        ("open Photos", EN, PHOTOS),
        ("Open the Photos app.", EN, PHOTOS),
        ("open google maps", EN, MAPS),
        ("ቴሌግራምን ክፈት", AM, CHAT_APP),
    ],
)
def test_an_app_is_opened_by_its_name_from_the_launcher(
    transcript: str, language: Locale, package: str
) -> None:
    raw = planner.plan(transcript, Screen(LAUNCHER, HOME_SCREEN, granted=False), language,
                       [PHOTOS, MAPS, CHAT_APP])  # fmt: skip
    assert raw["package_name"] == package
    assert [s["action_type"] for s in raw["steps"]] == ["OPEN_APP"]


def test_a_name_two_granted_apps_answer_to_is_declined() -> None:
    """ "google" is a segment of Maps' package and of Photos': opening either is a guess."""
    raw = planner.plan("open google", Screen(LAUNCHER, HOME_SCREEN, granted=False), EN,
                       [MAPS, PHOTOS])  # fmt: skip
    _declined(raw, "nothing_to_do")


def test_a_launcher_icon_is_never_tapped_for_an_app_no_grant_ties_to_its_name() -> None:
    """ "Gallery" stands on the launcher, but no granted package is named so: its icon opens a
    package the screen does not show, whose grant nobody can check."""
    raw = planner.plan("open gallery", Screen(LAUNCHER, HOME_SCREEN, granted=True), EN,
                       [LAUNCHER, PHOTOS])  # fmt: skip
    _declined(raw, "app_not_granted")


# --- The grammar's commands plan as they did -------------------------------------------------


@pytest.mark.parametrize(
    ("transcript", "tree", "language", "steps", "asks"),
    [
        ("tap send", CHAT, EN, [("TAP", "n4", None, False)], False),
        ("tap the send button", CHAT, EN, [("TAP", "n4", None, False)], False),
        ("send", CHAT, EN, [("TAP", "n4", None, False)], False),
        ("call abebe", CHAT, EN, [("TAP", "n6", None, True)], False),
        ("type see you", CHAT, EN, [("TEXT_INPUT", "n3", "see you", True)], False),
        ("send see you", CHAT, EN,
         [("TEXT_INPUT", "n3", "see you", True), ("TAP", "n4", None, False)], False),
        ("scroll up", CHAT, EN, [("SCROLL", "n5", "up", False)], False),
        ("go back", CHAT, EN, [("BACK", None, None, False)], False),
        ("go to the home screen", CHAT, EN, [("HOME", None, None, False)], False),
        ("ላክ", CHAT_AM, AM, [("TAP", "n4", None, False)], False),
        ("አበበ ን ንካ", CHAT_AM, AM, [("TAP", "n6", None, False)], False),
        ("ለ አበበ ደውል", CHAT_AM, AM, [("TAP", "n6", None, True)], False),
        ("ወደ ታች ሸብልል", CHAT_AM, AM, [("SCROLL", "n5", "down", False)], False),
        ("ተመለስ", CHAT_AM, AM, [("BACK", None, None, False)], False),
        ("ወደ መነሻ ገጽ ሂድ", CHAT_AM, AM, [("HOME", None, None, False)], False),
    ],
)  # fmt: skip
def test_the_grammars_commands_plan_as_before(
    transcript: str, tree: str, language: Locale, steps: list[Any], asks: bool
) -> None:
    raw = _plan(transcript, tree, language)
    assert (_steps(raw), raw["needs_confirmation"]) == (steps, asks)


def test_two_wordings_of_one_command_still_have_one_intent() -> None:
    """The second ear compares transcripts by intent: the grammar's wordings still agree."""
    assert intent_of("press the save button", EN) == intent_of("tap save", EN)
    assert intent_of("send it", EN) == intent_of("send", EN)
    assert intent_of("አበበ ን ጫን", AM) == intent_of("አበበ ንካ", AM)


# --- Labels said alone, switches, places and the page's own controls ------------------------

# A dialog and a settings page as real apps draw them: a switch's label is its row's text, a
# quick-settings tile shows its state and is described by its name.
DIALOG = """[n1] FrameLayout
  [n2] TextView "Remove the selected items from the call history?"
  [n3] Button "No" {clickable}
  [n4] Button "Yes" {clickable}"""
VIEWS = """[n1] FrameLayout
  [n2] RadioButton "Daily view" {clickable}
  [n3] RadioButton "Weekly view" {clickable,checked}
  [n4] Button "Cancel" {clickable}
  [n5] Button "Share my location" {clickable}"""
SWITCHES = """[n1] FrameLayout
  [n2] ScrollView {scrollable}
    [n3] LinearLayout {clickable}
      [n4] TextView "Show passwords"
      [n5] Switch "ON" {checked}
    [n6] RelativeLayout {clickable}
      [n7] CheckBox "Shutter sound" {checked}
  [n8] Switch "Off" desc="Airplane mode" {clickable}"""
PLACES = """[n1] FrameLayout
  [n2] TabView {clickable,selected}
    [n3] TextView "Photos"
  [n4] TabView {clickable}
    [n5] TextView "News"
  [n6] RecyclerView {scrollable}
    [n7] FrameLayout {clickable}
      [n8] TextView "Download"
      [n9] TextView "1 item\""""
PAGE = """[n1] FrameLayout
  [n2] TextView "Bob"
  [n3] ImageView desc="Call contact" {clickable}
  [n4] ImageView desc="Send SMS" {clickable}
  [n5] Button desc="Rotate" {clickable}
  [n6] Button desc="Delete" {clickable}"""


@pytest.mark.parametrize(
    ("transcript", "tree", "target"),
    [("Cancel.", VIEWS, "n4"), ("Daily view", VIEWS, "n2"), ("Rotate it.", PAGE, "n5")],
)
def test_a_controls_whole_label_said_alone_taps_it(transcript: str, tree: str, target: str) -> None:
    raw = _plan(transcript, tree)
    assert _steps(raw) == [("TAP", target, None, False)]
    assert _answer(raw, tree) == "ACCEPTED"


@pytest.mark.parametrize("transcript", ["view", "my location", "weekly", "ok"])
def test_words_that_are_not_a_controls_whole_label_said_alone_are_nothing_to_do(
    transcript: str,
) -> None:
    _declined(_plan(transcript, VIEWS), "nothing_to_do")


@pytest.mark.parametrize(("transcript", "target"), [("አዎ", "n4"), ("አይ", "n3")])
def test_an_amharic_answer_names_the_dialogs_english_button(transcript: str, target: str) -> None:
    raw = _plan(transcript, DIALOG, AM)
    assert [step[:2] for step in _steps(raw)] == [("TAP", target)]


def test_an_amharic_yes_to_a_dialog_that_removes_is_still_asked() -> None:
    assert _answer(_plan("አዎ", DIALOG, AM), DIALOG) == "CONFIRMATION_REQUIRED"


@pytest.mark.parametrize(
    ("transcript", "target"),
    [
        ("Turn off show passwords.", "n4"),
        ("Switch show passwords off", "n4"),
        ("Uncheck shutter sound.", "n7"),
        ("Turn on airplane mode.", "n8"),
    ],
)
def test_turning_a_switch_taps_it(transcript: str, target: str) -> None:
    raw = _plan(transcript, SWITCHES, package=SETTINGS_APP)
    assert _steps(raw) == [("TAP", target, None, False)]
    assert _answer(raw, SWITCHES, SETTINGS_APP) == "ACCEPTED"


@pytest.mark.parametrize(
    "transcript", ["Turn on show passwords.", "Enable shutter sound", "Turn airplane mode off"]
)
def test_a_switch_that_already_shows_the_state_asked_for_is_not_tapped(transcript: str) -> None:
    _declined(_plan(transcript, SWITCHES, package=SETTINGS_APP), "nothing_to_do")


@pytest.mark.parametrize("transcript", ["Go to the news tab.", "Switch to news", "Change news"])
def test_going_to_a_place_taps_it_without_the_word_for_the_place(transcript: str) -> None:
    assert _steps(_plan(transcript, PLACES)) == [("TAP", "n5", None, False)]


def test_open_with_no_granted_app_of_that_name_never_taps_the_screens_control() -> None:
    """An "open settings" most often means the Settings app: a control of that name on the
    screen is the planner's guess to make, not the rules'."""
    _declined(_plan("Open the Download folder.", PLACES), "app_not_granted")


def test_open_still_opens_the_granted_app_of_that_name() -> None:
    raw = _plan("Open Photos.", PLACES, apps=(PHOTOS,))
    assert [step[0] for step in _steps(raw)] == ["OPEN_APP"]


@pytest.mark.parametrize("transcript", ["Call this number.", "Call him", "Call Bob."])
def test_a_call_to_whom_the_page_is_about_taps_its_one_call_control(transcript: str) -> None:
    raw = _plan(transcript, PAGE)
    assert _steps(raw) == [("TAP", "n3", None, True)]
    assert _answer(raw, PAGE) == "CONFIRMATION_REQUIRED"


def test_a_call_on_a_page_with_two_call_controls_is_declined() -> None:
    tree = PAGE + '\n  [n7] ImageView desc="Dial number" {clickable}'
    _declined(_plan("Call him", tree), "target_not_on_screen")


def test_delete_this_thing_on_its_own_page_taps_the_delete_control_and_asks() -> None:
    raw = _plan("Delete this photo.", PAGE)
    assert [step[:2] for step in _steps(raw)] == [("TAP", "n6")]
    assert _answer(raw, PAGE) == "CONFIRMATION_REQUIRED"


@pytest.mark.parametrize("transcript", ["Go to my latest news", "Turn on the newsletter"])
def test_a_place_or_switch_that_only_looks_like_a_label_is_declined(transcript: str) -> None:
    _declined(_plan(transcript, PLACES), "target_not_on_screen")


# --- Amharic: an English label said as it sounds, in Ge'ez letters ---------------------------

LATIN_LABELS = """[n1] FrameLayout
  [n2] Button "System" {clickable}
  [n3] Button "NOTIFY ME" {clickable}
  [n4] View desc="Images" {clickable}
    [n5] TextView "Images"
  [n6] TextView "Discover" {clickable}
  [n7] Switch "Off" desc="Battery Saver" {clickable}
  [n8] Button "Sync" {clickable}
  [n9] Button "Sink" {clickable}"""


@pytest.mark.parametrize(
    ("transcript", "node"),
    [
        ("ሲስተም ንካ", "n2"),
        ("ኖቲፋይ ሚ ንካ", "n3"),
        ("ኢሜጅስ ንካ", "n4"),  # the text's control: the node a tap on it reaches
        ("ዲስከቨርን ጫኑ", "n6"),  # with the object marker, said to several
        ("ባትሪ ሴቨር አብራ", "n7"),  # a switch by its description, turned on
    ],
)
def test_an_english_label_said_as_it_sounds_in_geez_is_found_and_always_asked(
    transcript: str, node: str
) -> None:
    raw = _plan(transcript, LATIN_LABELS, AM)
    assert _steps(raw) == [("TAP", node, None, False)]
    assert _answer(raw, LATIN_LABELS) == "CONFIRMATION_REQUIRED"


def test_turning_on_a_switch_found_by_sound_that_is_already_on_does_nothing() -> None:
    tree = LATIN_LABELS.replace('"Off" desc="Battery Saver" {clickable}',
                                '"On" desc="Battery Saver" {clickable,checked}')  # fmt: skip
    _declined(_plan("ባትሪ ሴቨር አብራ", tree, AM), "nothing_to_do")


@pytest.mark.parametrize("transcript", ["ሰባት ንካ", "ሲስተር ንካ", "ሚ ንካ"])
def test_amharic_words_that_sound_like_no_label_on_the_screen_are_declined(
    transcript: str,
) -> None:
    """Seven (ሰባት) sounds like nothing there, "sister" is a consonant away from "System", and a
    lone "mi" is too short to name anything by sound."""
    _declined(_plan(transcript, LATIN_LABELS, AM), "target_not_on_screen")


def test_a_sound_that_two_controls_both_match_is_declined_not_chosen() -> None:
    """Both "Sync" and "Sink" sound like ሲንክ: the rules name neither."""
    _declined(_plan("ሲንክ ንካ", LATIN_LABELS, AM), "target_not_on_screen")


def test_a_label_in_geez_letters_is_still_matched_by_its_letters_before_its_sound() -> None:
    tree = LATIN_LABELS + '\n  [n10] Button "ሲስተም" {clickable}'
    raw = _plan("ሲስተም ንካ", tree, AM)
    assert _steps(raw) == [("TAP", "n10", None, False)]
    assert _answer(raw, tree) == "ACCEPTED"


def test_open_in_amharic_stays_an_apps_name_even_when_a_label_sounds_like_it() -> None:
    """With no granted app of that name, "ሲስተም ክፈት" is declined, as "Open System." is."""
    _declined(_plan("ሲስተም ክፈት", LATIN_LABELS, AM), "app_not_granted")
