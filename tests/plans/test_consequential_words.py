"""Screen text that names a consequential act (money, deleting, sending, installing, allowing,
blocking, the account, calling) reads as destructive as a person sees it: look-alike letters,
marks, invisible characters, identifier spellings and prefixes cannot hide a word, and Amharic
words match inside their clitics. A needless question is the safe side of a wrong guess."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lisan.core.settings import Settings
from lisan.plans.words import DESTRUCTIVE_AMHARIC, DESTRUCTIVE_ENGLISH, reads_destructive
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures import commands as sent
from tests.fixtures.devices import TELEGRAM
from tests.fixtures.plans import CONFIRM, run_cases
from tests.fixtures.rules import Json


@pytest.mark.parametrize(
    "text",
    [
        "Delete", "DELETE", "delete", "Delete message", "Deleted items", "Remove", "Erase",
        "Send", "Sending…", "Pay", "Pay 500 Birr", "Payments", "Confirm payment", "Buy now",
        "Purchase", "Order", "Place order", "Checkout", "Call", "Call Abebe", "Video call",
        "Transfer", "Uninstall", "Reset", "Factory reset", "Sign out", "Sign-out", "Log out",
        "Logout", "LOG OUT", "Post", "Share", "Move to trash", "Clear all", "Discard draft",
        "\uff24\uff45\uff4c\uff45\uff54\uff45", "De\u200blete", "Send\u00a0money",
    ],
)  # fmt: skip
def test_english_destructive_words_are_recognised(text: str) -> None:
    """English words of consequential acts read as destructive, in any case or form."""
    assert reads_destructive(text)


@pytest.mark.parametrize(
    "text",
    [
        "ሰርዝ", "ይሰርዙ", "መልእክቱን ሰርዝ", "አጥፋ", "ደምስስ", "አስወግድ", "አራግፍ", "አጽዳ",
        "ዳግም አስጀምር", "ላክ", "ይላኩ", "ላክለት", "ገንዘብ ላክ", "ክፈል", "ክፍያ ፈጽም", "ግዛ",
        "ግዢ ፈጽም", "እዘዝ", "ደውል", "ለአበበ ደውል", "አስተላልፍ", "ዘግተህ ውጣ", "ውጣ", "አጋራ",
        "ያጋሩ", "ለጥፍ",
    ],
)  # fmt: skip
def test_amharic_destructive_words_are_recognised(text: str) -> None:
    """Amharic words of consequential acts read as destructive, with their clitics."""
    assert reads_destructive(text)


@pytest.mark.parametrize(
    "text",
    [
        None, "", "Chats", "Settings", "Display", "Recall", "Border", "Open", "Cancel", "Back",
        "Message", "Contact Abebe", "Undo", "Search", "ክፈት", "ቅንብሮች", "መልእክቶች", "ክፍል",
        "ተመለስ", "ፈልግ",
    ],
)  # fmt: skip
def test_ordinary_labels_are_not_destructive(text: str | None) -> None:
    """Ordinary labels, and words that only look alike ("Recall", "ክፍል"), are not destructive."""
    assert not reads_destructive(text)


@pytest.mark.parametrize(
    "text",
    [
        "D\u0435lete", "DEL\u0415\u0422E", "Del\u034fete", "De\u0301lete", "D\u00e9l\u00e8te",
        "Pa\u200dy", "\uff30\uff41\uff59", "Trans\u00adfer", "R\u0435move", "\u0405end",
        "\u1220\u122d\u12dd", "\u1230\u122d\u12dd\u135f",
    ],
)  # fmt: skip
def test_look_alikes_marks_and_invisible_characters_do_not_hide_a_word(text: str) -> None:
    """Look-alike letters, combining marks and invisible characters do not hide a word."""
    assert reads_destructive(text)


@pytest.mark.parametrize(
    "text",
    [
        # money
        "Withdraw", "Sell", "Cash out", "Cash-out", "Donate", "Top up", "Recharge airtime",
        "Upgrade to Premium", "Renew plan", "Check out",
        # deleting and clearing
        "Empty trash", "Wipe data",
        # sending, posting, forwarding
        "Forward", "Repost", "Upload", "Submit", "Publish",
        # installing
        "Install", "Uninstall",
        # accepting and allowing
        "Accept", "Allow", "Allow all the time", "Agree", "I agree", "Grant access", "Approve",
        "Authorize", "Confirm",
        # blocking and reporting
        "Block", "Block contact", "Report", "Report spam", "Unfollow", "Unfriend",
        # the account
        "Deactivate account", "Close account", "Close my account", "Unsubscribe", "Leave group",
        "Leave", "Sign off", "Log off", "Unlink device",
        # Amharic
        "አውጣ", "ገንዘብ አውጣ", "ሽጥ", "ለግስ", "ሙላ", "ተመዝገብ", "አትም", "አስገባ", "ጫን", "ይጫኑ",
        "ተቀበል", "ፍቀድ", "እስማማለሁ", "አረጋግጥ", "አግድ", "ሪፖርት አድርግ", "አቦዝን", "መለያ ዝጋ",
        "መለያውን ዝጋ", "አቋርጥ", "ቡድኑን ልቀቅ",
    ],
)  # fmt: skip
def test_every_consequential_verb_is_recognised(text: str) -> None:
    """Every kind of consequential act is recognised: money, deleting, sending, installing,
    allowing, blocking, the account, calling; in English and Amharic."""
    assert reads_destructive(text)


@pytest.mark.parametrize("words", [*DESTRUCTIVE_ENGLISH, *DESTRUCTIVE_AMHARIC])
def test_every_listed_word_reads_as_destructive_itself(words: str) -> None:
    """Every listed word reads as destructive itself, upper-cased too: no entry is one that
    folding or the pattern never matches."""
    assert reads_destructive(words)
    assert reads_destructive(words.upper())


def test_a_known_false_alarm_errs_on_the_safe_side() -> None:
    """Amharic words match anywhere, so a word holding one asks once too often: the safe side."""
    # "ግዛት" (region) holds "ግዛ" (buy).
    assert reads_destructive("ግዛት")


def _tap_on(label_line: str) -> tuple[dict[str, Json], str, str]:
    return (
        sent.plan(sent.step("TAP", "t", destructive=False)),
        TELEGRAM,
        f"[n1] FrameLayout\n  {label_line}",
    )


DESTRUCTIVE_LABELS = {
    "a Cyrillic e in Delete": '[t] Button "D\u0435lete" {clickable}',
    "a combining grapheme joiner": '[t] Button "Del\u034fete" {clickable}',
    "a zero-width joiner": '[t] Button "Pa\u200dy" {clickable}',
    "fullwidth letters": (
        '[t] Button "\uff34\uff52\uff41\uff4e\uff53\uff46\uff45\uff52" {clickable}'
    ),
    "a Cyrillic capital in a shout": '[t] Button "DEL\u0415\u0422E" {clickable}',
    "an accent": '[t] Button "D\u00e9l\u00e8te" {clickable}',
    "a homophone Amharic spelling": '[t] Button "\u1220\u122d\u12dd" {clickable}',
    "withdraw": '[t] Button "Withdraw cash" {clickable}',
    "cash out": '[t] Button "Cash-out" {clickable}',
    "sell": '[t] Button "Sell now" {clickable}',
    "install": '[t] Button "Install" {clickable}',
    "allow a permission": '[t] Button "Allow" {clickable}',
    "block": '[t] Button "Block contact" {clickable}',
    "report": '[t] Button "Report" {clickable}',
    "deactivate": '[t] Button "Deactivate account" {clickable}',
    "unsubscribe": '[t] Button "Unsubscribe" {clickable}',
    "leave": '[t] Button "Leave group" {clickable}',
    "forward": '[t] Button "Forward" {clickable}',
    "Amharic: accept": '[t] Button "ተቀበል" {clickable}',
    "Amharic: block": '[t] Button "አግድ" {clickable}',
    "Amharic: sell": '[t] Button "ሽጥ" {clickable}',
    "Amharic: withdraw": '[t] Button "ገንዘብ አውጣ" {clickable}',
}


async def test_a_destructive_label_is_read_as_it_looks(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """Through the route: a label is read as a person sees it, so a look-alike letter, a joiner,
    fullwidth letters or an accent cannot make a consequential tap go unconfirmed."""
    cases = {
        name: (*_tap_on(line), ("CONFIRMATION_REQUIRED", None))
        for name, line in DESTRUCTIVE_LABELS.items()
    }
    bodies = await run_cases(settings_factory, fake_openai, cases)
    assert all(body["action_plan"]["steps"][0]["is_destructive"] for body in bodies)


# What a person sees, spelled so that yesterday's fold missed the word.
HIDDEN_WORDS = {
    "a Hangul filler inside": '"De\u3164lete"',
    "a Hangul filler before a word": '"Photos\u3164Delete"',
    "a halfwidth Hangul filler": '"Pa\uffa0y"',
    "a Mongolian variation selector": '"Del\u180bete"',
    "tag characters": '"De\U000e0041\U000e0042lete"',
    "a private-use code point": '"Rem\ue000ove"',
    "an unassigned code point": '"Del\U0001fffeete"',
    "an underscore joins nothing": 'desc="btn_remove_item"',
    "camelCase": 'desc="deleteButton"',
    "a prefix: resend": '"Resend"',
    "a prefix: unsend": '"Unsend"',
    "a prefix: auto-pay": '"AutoPay"',
    "a prefix with a hyphen": '"Re-post"',
    "a noun form": '"Account deletion"',
    "a right-to-left override draws it": '"\u202eeteleD\u202c"',
    "letters spaced with hair spaces": '"D\u200ae\u200al\u200ae\u200at\u200ae"',
    "letters spaced with thin spaces": '"P\u2009a\u2009y"',
    "Latin small capitals": '"\u1d05\u1d07\u029f\u1d07\u1d1b\u1d07"',
    "a design.md line break before it": '"Cancel\\nDelete"',
}


async def test_a_word_is_read_whatever_hides_or_wraps_it(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """Through the route: fillers, selectors, tag and private-use characters, identifier
    spellings, prefixes and noun forms do not hide a consequential word."""
    cases = {
        name: (
            sent.plan(sent.step("TAP", "t")),
            TELEGRAM,
            f"[n1] FrameLayout\n  [t] Button {label} {{clickable}}",
            CONFIRM,
        )
        for name, label in HIDDEN_WORDS.items()
    }
    bodies = await run_cases(settings_factory, fake_openai, cases)
    assert all(body["action_plan"]["steps"][0]["is_destructive"] for body in bodies)


@pytest.mark.parametrize(
    "text",
    ["\u202eeteleD\u202c", "D\u200ae\u200al\u200ae\u200at\u200ae", "S e n d", "\u1d18\u1d00\u028f"],
    ids=["bidi override", "hair spaces", "spaced letters", "small capitals"],
)
def test_spellings_drawn_as_the_word_read_as_it(text: str) -> None:
    """Text stored reversed inside a right-to-left override, letters spaced apart, and Latin
    look-alikes outside the confusables table read as the word a person sees."""
    assert reads_destructive(text)


@pytest.mark.parametrize("text", ["a b c", "Chats", "I O U", "\u202eChats\u202c"])
def test_those_readings_find_no_word_that_is_not_there(text: str) -> None:
    assert not reads_destructive(text)


@pytest.mark.parametrize(
    "text",
    ["Book now", "Place bet", "Add a tip", "Start free trial", "Move to bin", "Format SD card",
     "Overwrite file", "Exit group", "Unpair", "Factory reset", "ቦታ ያዝ", "ውርርድ", "ቅረጽ",
     "ወደ መጣያ ውሰድ"],
)  # fmt: skip
def test_what_money_messages_data_membership_and_devices_can_lose_is_consequential(
    text: str,
) -> None:
    """Bookings, bets, tips, trials, a bin, formatting, overwriting, leaving a group and a
    device's pairing or reset are acts a tap cannot take back: each reads destructive."""
    assert reads_destructive(text)


@pytest.mark.parametrize(
    ("label", "act"),
    [
        ("ተሰርዟል", "has been deleted (ሰርዝ)"),
        ("መሰረዝ", "deleting, the verbal noun"),
        ("ለመሰረዝ", "to delete"),
        ("ተልኳል", "has been sent (ላክ)"),
        ("የተላከ", "which was sent"),
        ("ለመክፈል", "to pay (ክፈል)"),
        ("ገንዘብ ማስተላለፍ", "transferring money (አስተላልፍ)"),
        ("መፍቀድ", "allowing (ፍቀድ)"),
        ("ተገዝቷል", "has been bought (ግዛ)"),
        ("ግዛው", "buy it"),
    ],
)
def test_an_inflected_amharic_act_reads_as_its_root(label: str, act: str) -> None:
    """Amharic verbs inflect by their vowels and affixes: an inflected or verbal-noun form of a
    consequential act reads consequential, read through its affixes to its stem."""
    assert reads_destructive(label), act


@pytest.mark.parametrize(
    "label",
    ["ተመለስ", "ይመለሱ", "ልክ ነው", "ተከተል", "ፍለጋ", "ቅንብሮች", "ፎቶዎች", "መልእክት", "ሰላም", "አዲስ"],
)
def test_amharic_words_that_only_share_a_short_roots_consonants_are_not_acts(label: str) -> None:
    """Words that share an act's consonants but not its syllables are no act: "ተመለስ" (go
    back) is no "አትም" (publish), "ልክ ነው" (that's right) no "ላክ" (send)."""
    assert not reads_destructive(label)


async def test_through_the_route_an_inflected_amharic_act_is_asked(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """Through the route: a button whose Amharic label inflects a consequential act is asked,
    whatever the planner flagged; a button that only shares a short root's consonants is not."""
    screen = """[n1] FrameLayout
  [n2] Button "መልእክቱ ተሰርዟል፤ ለሁሉም ለመሰረዝ" {clickable}
  [n3] Button "ተመለስ" {clickable}
  [n4] TextView "መልእክቶች"
  [n5] TextView "ቅንብሮች"
  [n6] TextView "ፎቶዎች"
  [n7] TextView "ጥሪዎች"
  [n8] TextView "እገዛ"
  [n9] TextView "ስለ"
  [n10] TextView "ሁኔታ\""""
    cases = {
        "to delete for everyone": (sent.plan(sent.step("TAP", "n2")), TELEGRAM, screen, CONFIRM),
        "go back": (sent.plan(sent.step("TAP", "n3")), TELEGRAM, screen, ("ACCEPTED", None)),
    }
    asked, _ = await run_cases(settings_factory, fake_openai, cases)
    assert asked["action_plan"]["steps"][0]["is_destructive"] is True
