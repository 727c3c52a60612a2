"""How an Amharic word is read as an act: by its grammar, word by word (`reads_amharic_act`).

A verb carries its prepositions, subordinators, negation, person, voice and mood in front
("ለመሰረዝ", to delete; "እንዲልኩ", that they send; "አትሰርዝ", don't delete) and its objects,
possessors, person and plural behind ("ላክለት", send him; "ተሰርዟል", has been deleted), and it
inflects by the vowels of its stem ("ሰርዝ", delete!, "ሰረዘ", he deleted). So a word is an act when
it is at most three known prefixes (`AMHARIC_PREFIXES`), one of an act's stems (`AMHARIC_ACTS`:
imperative and jussive, perfect, imperfect, infinitive and passive stems, the last syllable in
any vowel since endings fuse with it: "ሰርዙ", "ክፈሉ" and "ላኩ" are the plural and polite
imperatives), and at most three known endings (`AMHARIC_ENDINGS`), with nothing left over. The
stems are compared syllable by syllable, vowels included, so a word that only shares an act's
consonants is not that act: "ልክ" (right) is no "ላክ" (send), "ክፍል" (a room) no "ክፈል" (pay),
"ተከተል" (follow) no "ተካ" (replace), "ውጤት" (result) no "ውጣ" (go out). A stem that never stands
alone (the imperfect "-ልክ" of "ይልካል", he sends) is read only after a prefix of person or voice,
so the bare "ልክ" and "ደወል" (a bell) are not acts; a causative's stem ("አጥፋ", erase!) is read
with its own glottal prefix (አ, or fused into the prefix before it: ያ, ማ, ላ, ና, ታ), so "ይጠፋል"
(it goes off) is not erasing. A word that spells an act's stem yet is none of its forms ("ሰረዝ",
a dash) is excused only as spelled, whole (`AMHARIC_NOT_ACTS`): no inflected form of an act is.
What the grammar still mistakes is the odd homograph: "ግዛት" (region) reads as "ግዛ" (buy!) with
an ending, a needless question; the plural "fill!" ("ሙሉ") is spelled as "full" and read only
with a prefix ("ይሙሉ"). Acts said in two words ("ቦታ ያዝ", book) are matched as spelled
(`words.DESTRUCTIVE_AMHARIC`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lisan.core.text import consonants, fold

# Amharic is read by its grammar (see the module's docstring). Each act is a few stems, spelled
# with the vowels that tell it from other words ("ላክ", send, has ላ; "ልክ", right, has ል):
# - a stem's last syllable may take any vowel of its consonant, since endings fuse with it
#   ("ሰርዝ" is also "ሰርዙ", delete! pl., and the "ሰርዟ" of "ተሰርዟል", has been deleted); a stem
#   ending in "=" keeps its last vowel as spelled ("ውጣ=", go out, is no "ውጤት", result);
# - a stem starting with "-" is one that never stands alone (an imperfect or passive stem): it
#   is read only after a prefix of person, voice or mood (`AMHARIC_VERB_PREFIXES`: "ይልካል", he
#   sends, "ተልኳል", has been sent; a bare "ልክ" is "right", "ደወል" a bell);
# - a causative stem ("አጥፋ", erase!) is also read with its አ fused into the prefix before it:
#   the ያ of its jussive, the ማ of its infinitive, the ላ and ና of "let me", "let us" and the ታ
#   of "you" ("ያጥፉ", "ለማጥፋት", "ላስቀምጥ"); the plain verb ("ይጠፋል", it goes off) is not the act.
AMHARIC_ACTS = (
    # money
    ("pay", ("ክፈል", "ከፈል", "-ከፍል", "ክፍያ")),
    ("buy", ("ግዛ", "-ገዛ", "ግዢ")),
    ("order", ("እዘዝ", "አዘዝ", "-ዘዝ")),
    ("transfer, forward", ("አስተላልፍ", "አስተላለፍ", "-ስተላልፍ", "-ስተላለፍ")),
    ("sell", ("ሽጥ", "ሸጥ")),
    ("donate", ("ለግስ", "ለገስ", "ልገሳ")),
    ("top up (fill)", ("ሙላ=", "-ሙሉ=", "-ሞላ=")),
    ("subscribe, register", ("-መዝገብ", "-መዘገብ")),
    ("bet", ("ውርርድ", "-ወራረድ")),
    ("tip", ("ጉርሻ",)),
    # deleting and clearing
    ("delete", ("ሰርዝ", "ሰረዝ", "ሰርዢ=", "ስረዛ")),
    ("erase", ("አጥፋ", "አጠፋ")),
    ("destroy, erase", ("ደምስስ", "ደመሰስ")),
    ("remove", ("አስወግድ", "አስወገድ", "-ወግድ", "-ወገድ")),
    ("clear", ("አጽዳ", "አጸዳ")),
    ("format (storage)", ("ቅረጽ",)),
    ("replace, overwrite", ("ተካ=", "-ተኩ=", "-ተክ=")),
    # sending, posting
    ("send", ("ላክ", "-ልክ")),
    ("post (also paste)", ("ለጥፍ", "ለጠፍ", "ልጥፍ")),
    ("publish", ("አትም", "አተም")),
    ("share", ("አጋራ", "-ጋራ")),
    ("submit", ("አስገባ",)),
    # installing
    ("install (also press)", ("ጫን",)),
    ("uninstall", ("አራግፍ", "አራገፍ")),
    # accepting and allowing
    ("accept", ("ተቀበል", "ተቀብል", "-ቀበል")),
    ("allow", ("ፍቀድ", "ፈቀድ", "-ፈቅድ")),
    ("agree", ("ስማማ",)),
    ("confirm", ("አረጋግጥ", "አረጋገጥ", "-ረጋግጥ")),
    # blocking
    ("block", ("አግድ", "አገድ", "ታግድ")),
    ("report", ("ሪፖርት",)),
    # the account
    ("deactivate", ("አቦዝን", "አቦዘን")),
    ("unsubscribe, discontinue", ("አቋርጥ", "አቋረጥ")),
    ("leave (a group)", ("ልቀቅ", "ለቀቅ")),
    ("sign out, leave; withdraw (take out)", ("ውጣ=", "ውጡ=")),
    # calling
    ("call", ("ደውል", "-ደወል")),
)
# Before a stem, at most `AMHARIC_MAX_AFFIXES` of these, outermost first in a word: relative and
# prepositional (የ, ለ, በ, ከ, ስለ, እንደ), subordinate and purposive (እንዲ, ሲ, ሊ, ሚ), negative
# (አል, አት, አይ), person, voice and mood (ይ, ት, እ, ን, ተ, ያ, አ, ማ, መ, ል).
AMHARIC_PREFIXES = (
    "እንዲ", "እንድ", "እንደ", "ስለ", "ሲ", "ሊ", "ሚ", "የ", "ለ", "በ", "ከ", "አል", "አት", "አይ",
    "ተ", "መ", "ማ", "ያ", "ይ", "ት", "እ", "አ", "ን", "ል",
)  # fmt: skip
# What a stem that never stands alone follows directly.
AMHARIC_VERB_PREFIXES = ("ይ", "ት", "ን", "ተ", "ሚ", "ሲ", "ሊ", "እንዲ", "እንድ", "ያ", "ማ", "መ")
# After a stem, at most `AMHARIC_MAX_AFFIXES` of these: object and possessive (ው, ኝ, ህ, ሽ, ዎ,
# ት, ን, ቸው, ለት, ላቸው...), plural (ዎች, ኦች), person (ኩ, ሁ, ለሁ, ል, ላል...), the perfect's
# "has" (ቷል, ዋል...), the negative's ም and the conjunction's ና.
AMHARIC_ENDINGS = (
    "ው", "ዋ", "ዎ", "ዎን", "ዎች", "ኦች", "ች", "ኝ", "ህ", "ሽ", "ሁ", "ኩ", "ት", "ን", "ና", "ም",
    "ል", "ላ", "ለ", "ሉ", "ቸው", "ችሁ", "ለት", "ላት", "ላቸው", "ልኝ", "ልህ", "ልሽ", "ልን", "ልዎ",
    "ባቸው", "ቷል", "ዋል", "ኋል", "ለሁ", "ላል", "ለች", "ናል", "ታል", "ሻል", "ያል", "ቻል", "ቻለሁ",
    "ኣል", "ኣለሁ",
)  # fmt: skip
AMHARIC_MAX_AFFIXES = 3
# Words spelled exactly as an act's stem reads that are no form of it, compared whole and as
# spelled (folded), so no inflected act is ever excused by them.
AMHARIC_NOT_ACTS = (
    "ሰረዝ", "ሰረዞች",  # a dash, dashes (ሰረዘ, delete: its perfect stem, never a word alone)
)  # fmt: skip


def _vowels_of(consonant: str) -> frozenset[str]:
    """Every syllable of a Ge'ez consonant (its row, and its labialized row), folded."""
    row = consonants(consonant)
    syllables = (chr(code) for code in range(0x1200, 0x135B))
    return frozenset(fold(s) for s in syllables if consonants(s) == row and fold(s))


def _stem_forms(spellings: Iterable[str]) -> Iterable[tuple[str, bool]]:
    """Each stem as a pattern over folded text (its body as spelled, then its last syllable),
    and whether it is read only after a verb prefix."""
    for spelling in spellings:
        bound, exact = spelling.startswith("-"), spelling.endswith("=")
        stem = spelling.strip("-=")
        # A causative's አ fuses with the prefix before it: ያ (jussive), ማ (infinitive), ላ and
        # ና (let me, let us), ታ (you).
        fused = ("ያ", "ማ", "ላ", "ና", "ታ")
        causative = (stem, *(f + stem[1:] for f in fused)) if stem[0] == "አ" else (stem,)
        for form in causative:
            lasts = {fold(form[-1])} if exact else _vowels_of(form[-1])
            yield (
                re.escape(fold(form[:-1])) + f"[{''.join(map(re.escape, sorted(lasts)))}]",
                bound,
            )


def _one_of(texts: Iterable[str]) -> str:
    """An alternation, longest first, of texts folded and escaped."""
    return "|".join(re.escape(fold(t)) for t in sorted(set(texts), key=len, reverse=True))


def amharic_pattern(spellings: Iterable[str]) -> re.Pattern[str]:
    """A word (between separators) that is at most three prefixes, one of the stems and at most
    three endings; the bound stems right after a verb prefix. Each repetition is bounded and
    each alternative spells its characters, so a match attempt at a word's start costs at most
    a fixed number of steps, and no attempt starts inside a word: linear in the text."""
    forms = list(_stem_forms(spellings))
    free = "|".join(form for form, bound in forms if not bound)
    bound = "|".join(form for form, bound in forms if bound) or "(?!)"
    prefix, verb = _one_of(AMHARIC_PREFIXES), _one_of(AMHARIC_VERB_PREFIXES)
    most = AMHARIC_MAX_AFFIXES
    return re.compile(
        rf"(?<!\S)(?!(?:{_one_of(AMHARIC_NOT_ACTS)})(?!\S))"
        rf"(?:(?:{prefix}){{0,{most}}}(?:{free})|(?:{prefix}){{0,{most - 1}}}(?:{verb})(?:{bound}))"
        rf"(?:{_one_of(AMHARIC_ENDINGS)}){{0,{most}}}(?!\S)"
    )


# Over a reading of `core.text.folds`.
AMHARIC_WORDS = amharic_pattern(spelling for _, spellings in AMHARIC_ACTS for spelling in spellings)


def reads_amharic_act(word: str) -> bool:
    """Whether one Amharic word is a form of an act (see the module's docstring)."""
    return AMHARIC_WORDS.fullmatch(fold(word)) is not None


# Any letter of the Ge'ez script: where Amharic may be read.
GEEZ = re.compile("[\u1200-\u137f]")
