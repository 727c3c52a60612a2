"""The spoken lines, as a native speaker says them: short, spoken register, no formality the
phone would stumble over. Audio is pre-synthesised from `lisan phrases export`."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from lisan.core.locale import Locale
from lisan.phrases.schemas import PhraseKey

_AM_ET = {
    PhraseKey.ACK: "እሺ።",
    PhraseKey.STILL_WORKING: "አሁንም እየሰራሁ ነው፣ ትንሽ ይጠብቁ።",
    PhraseKey.RETRY: "ይቅርታ፣ አልሰማሁም። እባክዎ እንደገና ይናገሩ።",
    PhraseKey.CONFIRM: "እርግጠኛ ነዎት? ለመቀጠል «አዎ» ይበሉ።",
    PhraseKey.ERR_NETWORK: "ኢንተርኔት የለም። ግንኙነትዎን ያረጋግጡ።",
    PhraseKey.ERR_TOO_SLOW: "ይቅርታ፣ ጊዜ ወሰደብኝ። እባክዎ እንደገና ይሞክሩ።",
    PhraseKey.ERR_REJECTED: "ይቅርታ፣ ይህን ማድረግ አልችልም።",
    PhraseKey.ERR_BILLING: "የደንበኝነት ምዝገባዎ ንቁ አይደለም።",
}

_EN_US = {
    PhraseKey.ACK: "Okay.",
    PhraseKey.STILL_WORKING: "Still working on it, one moment.",
    PhraseKey.RETRY: "Sorry, I didn't catch that. Please say it again.",
    PhraseKey.CONFIRM: "Are you sure? Say yes to go ahead.",
    PhraseKey.ERR_NETWORK: "No connection. Please check your internet.",
    PhraseKey.ERR_TOO_SLOW: "Sorry, that took too long. Please try again.",
    PhraseKey.ERR_REJECTED: "Sorry, I can't do that.",
    PhraseKey.ERR_BILLING: "Your subscription isn't active.",
}

CATALOG: Mapping[Locale, Mapping[PhraseKey, str]] = MappingProxyType(
    {
        Locale.AM_ET: MappingProxyType(_AM_ET),
        Locale.EN_US: MappingProxyType(_EN_US),
    }
)
