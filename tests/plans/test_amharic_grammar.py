"""Amharic acts are read by their grammar: a word is an act when it is known prefixes, an act's
stem spelled with its vowels, and known endings. So every inflected form of an act reads
consequential, and a word that only shares an act's consonants does not."""

from __future__ import annotations

import time

import pytest

from lisan.plans.amharic import AMHARIC_ACTS, AMHARIC_NOT_ACTS, reads_amharic_act
from lisan.plans.words import reads_destructive

# Inflected forms of acts, by act: imperatives (singular, plural, polite), jussives, perfects,
# imperfects, infinitives, passives and verbal nouns, with prefixes and endings.
INFLECTED_ACTS = {
    "delete (ሰረዘ)": "ሰርዝ ሰርዙ ይሰርዙ ሰርዢ ሰረዘ ሰርዘው ሰረዝኩ ተሰርዟል ይሰረዛል የተሰረዘ መሰረዝ ለመሰረዝ "
    "እንዲሰርዙ ሲሰርዙ ስለሰረዙ አትሰርዝ ስረዛ",
    "pay (ከፈለ)": "ክፈል ክፈሉ ይክፈሉ ከፈለ ይከፍላል ተከፍሏል ለመክፈል እንዲከፍሉ ክፍያ ክፍያዎን",
    "send (ላከ)": "ላክ ላኩ ይላኩ ላከ ላክለት ላኩልኝ መላክ የተላከ ይልካል ተልኳል እንዲልኩ",
    "buy (ገዛ)": "ግዛ ይግዙ ግዛው መግዛት ለመግዛት ይገዛል ተገዝቷል ግዢ",
    "transfer (አስተላለፈ)": "አስተላልፍ ያስተላልፉ አስተላለፈ ማስተላለፍ ለማስተላለፍ",
    "remove (አስወገደ)": "አስወግድ ያስወግዱ አስወገደ ማስወገድ ተወግዷል",
    "erase (አጠፋ)": "አጥፋ ያጥፉ አጠፋ ለማጥፋት የሚያጠፋ",
    "share (አጋራ)": "አጋራ ያጋሩ አጋራው ማጋራት",
    "post (ለጠፈ)": "ለጥፍ ይለጥፉ ለጠፈ ልጥፍ",
    "accept (ተቀበለ)": "ተቀበል ተቀበሉ ይቀበሉ ተቀብሏል መቀበል",
    "call (ደወለ)": "ደውል ደውሉ ይደውሉ መደወል",
    "block (አገደ)": "አግድ ያግዱ አገደ ማገድ ታግዷል",
    "allow (ፈቀደ)": "ፍቀድ ይፍቀዱ ፈቀደ ተፈቅዷል",
    "order (አዘዘ)": "እዘዝ ይዘዙ",
    "sell (ሸጠ)": "ሽጥ ይሽጡ",
    "top up (ሞላ)": "ሙላ ይሙሉ መሙላት",
    "withdraw, sign out (ወጣ)": "ውጣ ይውጡ አውጣ ያውጡ ማውጣት",
    "replace (ተካ)": "ተካ ይተኩ",
    "agree (ተስማማ)": "ተስማማ እስማማለሁ",
}
# Common harmless Amharic UI words: none is an act.
HARMLESS = (
    "ክፍል", "ክፍሎች", "ክፍሉ", "ልክ", "ሰረዝ", "ሰረዞች", "ተከተል", "ይከተሉ", "ተከታይ", "ተከታዮች", "ጠፍቷል", "በርቷል",
    "ቅንብሮች", "መነሻ", "ፈልግ", "ፍለጋ", "ተመለስ", "ይመለሱ", "ድምጽ", "ብሩህነት", "ማሳያ", "ማሳወቂያዎች", "ግላዊነት",
    "ደህንነት", "ቋንቋ", "ሰዓት", "ቀን", "እገዛ", "ስለ", "መገለጫ", "ፎቶዎች", "ቪዲዮዎች", "ሙዚቃ", "ካሜራ", "ካርታ", "ሁኔታ",
    "መልእክቶች", "ጥሪዎች", "እውቂያዎች", "ሙሉ", "ውጤት", "ውጤቶች", "ውጭ", "ባትሪ", "ማከማቻ", "ብሉቱዝ", "አዲስ", "ሰላም",
    "ፋይሎች", "ቅዳ", "አሳይ", "ደብቅ", "ተጨማሪ", "ዝርዝር", "ሁሉም", "ቀበሌ", "ልኬት", "ትልቅ", "ክፈት", "ግባ", "ምረጥ",
    "ፈቃዶች", "የጋራ", "የደወል", "ማተሚያ", "ጨለማ", "ገጽታ", "ስልክ", "ቁጥር", "ስም", "አድራሻ",
)  # fmt: skip


def _forms() -> list[tuple[str, str]]:
    return [(act, form) for act, forms in INFLECTED_ACTS.items() for form in forms.split()]


class TestAnInflectedActReadsAsTheAct:
    """Prefixes (subordinate and purposive እንዲ-, ሲ-, ስለ-, relative የ-, ለ-, person, voice and
    mood), plural and polite imperatives (-ኡ), object and possessive endings (-ው, -ኝ, -ህ, -ዎ,
    -ለት, -ልኝ...) and the perfect's -ኣል are read through to the act's stem."""

    @pytest.mark.parametrize(("act", "form"), _forms())
    def test_an_inflected_form_of_an_act_is_consequential(self, act: str, form: str) -> None:
        assert reads_destructive(form), act

    @pytest.mark.parametrize(
        ("label", "act"),
        [("ሰርዙ", "delete! (pl.)"), ("ክፈሉ", "pay! (pl.)"), ("ላኩ", "send! (pl., polite)"),
         ("ሰርዘው", "delete it"), ("ላኩልኝ", "send it to me (pl.)")],
    )  # fmt: skip
    def test_plural_and_polite_imperatives_read_as_the_act(self, label: str, act: str) -> None:
        assert reads_destructive(f"ፋይሉን {label}"), act

    @pytest.mark.parametrize(
        "label", ["ለአበበ ደውል", "መልእክቱን ሰርዙ", "ሂሳቡን ክፈሉ", "ገንዘብ ላኩ", "ለአበበ ይላኩ", "ፎቶዎቹን ያጋሩ"]
    )
    def test_an_act_in_a_sentence_is_read_as_the_act(self, label: str) -> None:
        assert reads_destructive(label)

    @pytest.mark.parametrize(("act", "stems"), AMHARIC_ACTS)
    def test_every_acts_first_stem_reads_as_the_act_itself(
        self, act: str, stems: tuple[str, ...]
    ) -> None:
        """Every act's first stem (its imperative, or a noun) is an act as it stands: no entry
        is one the grammar never matches."""
        first = stems[0].strip("=")
        assert reads_amharic_act(f"ይ{first[1:]}" if first.startswith("-") else first), act


class TestAWordThatOnlySharesAnActsConsonantsIsNoAct:
    """Stems are compared syllable by syllable, vowels included: "ልክ" (right) is no "ላክ"
    (send), "ክፍል" (a room) no "ክፈል" (pay), "ሰረዝ" (a dash) no "ሰርዝ" (delete), "ተከተል"
    (follow) no "ተካ" (replace), "ውጤት" (result) no "ውጣ" (go out)."""

    @pytest.mark.parametrize("word", HARMLESS)
    def test_a_common_ui_word_is_not_an_act(self, word: str) -> None:
        assert not reads_destructive(word)

    def test_the_harmless_list_is_long_enough_to_mean_something(self) -> None:
        assert len(set(HARMLESS)) >= 40

    @pytest.mark.parametrize("phrase", ["ልክ ነው", "ክፍል 3", "የደወል ቅላጼ", "ከመስመር ውጭ", "ሙሉ ስም"])
    def test_common_phrases_are_not_acts(self, phrase: str) -> None:
        assert not reads_destructive(phrase)

    def test_a_stem_that_never_stands_alone_is_read_only_after_a_verb_prefix(self) -> None:
        """The imperfect "-ልክ" of "ይልካል" (he sends) is no word alone: "ልክ" is "right"."""
        assert reads_destructive("ይልካል")
        assert reads_destructive("ተልኳል")
        assert not reads_destructive("ልክ")
        assert not reads_destructive("የልኬት")

    def test_a_causative_is_read_with_its_own_prefix_only(self) -> None:
        """ "አጥፋ" (erase!) is the causative of "ጠፋ" (go off): "ይጠፋል" (it goes off) is no act."""
        assert reads_destructive("ያጠፋል")
        assert not reads_destructive("ይጠፋል")


class TestAnExceptionExcusesOnlyItsOwnSpelling:
    """A word excused as no act is compared whole and as spelled: no inflected form of an act
    is excused by a word that shares its consonants."""

    @pytest.mark.parametrize("word", AMHARIC_NOT_ACTS)
    def test_an_excused_word_is_not_an_act(self, word: str) -> None:
        assert not reads_amharic_act(word)

    @pytest.mark.parametrize("word", AMHARIC_NOT_ACTS)
    def test_an_excused_word_with_a_prefix_is_read_again(self, word: str) -> None:
        assert reads_amharic_act(f"ለመ{word}") or reads_amharic_act(f"ተ{word}")

    @pytest.mark.parametrize(("act", "form"), _forms())
    def test_no_inflected_act_is_an_excused_word(self, act: str, form: str) -> None:
        assert form not in AMHARIC_NOT_ACTS, act


class TestReadingAmharicStaysLinear:
    """The grammar reads untrusted screen text: its cost grows with the text's length only, for
    a long unbroken word, many near-identical words and many words that almost parse."""

    @pytest.mark.parametrize(
        "text",
        [
            "ሰ" * 100_000,
            "ሰርዝ" * 33_000,
            " ".join(["እንዲየለሰርዝቐ"] * 6_000),
            " ".join(["ልክክክ"] * 12_000),
            "\n" * 60_000 + "ተመለስ",
        ],
        ids=["long word", "repeated stem", "almost parses", "near-identical", "blank lines"],
    )
    def test_a_64_kb_screen_is_read_in_well_under_a_second(self, text: str) -> None:
        start = time.process_time()
        reads_destructive(text)
        assert time.process_time() - start < 0.5
