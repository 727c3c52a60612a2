"""Android package names: the one rule of what a package name is (the contract's PackageName,
also the grants' request pattern), and whether an app's spoken name can be tied to one."""

from __future__ import annotations

import re
from typing import TypeGuard

from rapidfuzz import fuzz

from lisan.core.text import name_words

# The contract's PackageName: an Android application id.
PACKAGE_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]*([.][A-Za-z][A-Za-z0-9_]*)+$"
PACKAGE_NAME_LENGTH = range(3, 256)
_PACKAGE_NAME = re.compile(PACKAGE_NAME_PATTERN)

# Package segments that name no app ("com", "android", ...): a spoken name is not tied by them.
GENERIC_SEGMENTS = frozenset(
    {"com", "org", "net", "io", "co", "et", "android", "app", "apps", "mobile", "www", "the"}
)
SAME_NAME = 80  # rapidfuzz ratio from which a spoken word names a package segment


def is_package_name(value: object) -> TypeGuard[str]:
    return (
        isinstance(value, str)
        and len(value) in PACKAGE_NAME_LENGTH
        and _PACKAGE_NAME.fullmatch(value) is not None
    )


def names_package(spoken: str | None, package: str) -> bool:
    """Whether an app's name as the user said it can be tied to `package` by the package's own
    name: the whole name, or every word of it, is (nearly) one of the package's segments, after
    transliteration to Latin letters ("ቴሌግራም" names org.telegram.messenger, "My Bank"
    com.mybank.app, "Google Maps" com.google.android.apps.maps). The package itself names
    itself. Nearly: within `SAME_NAME`, for spellings a transliteration or a transcript varies.

    The user's `app` vocabulary terms are names without a package: they say that a name exists,
    not which app it names, so they cannot vouch for one."""
    if spoken is None:
        return False
    if spoken == package:
        return True
    words = [word for word in name_words(spoken) if word not in GENERIC_SEGMENTS]
    segments = [seg for seg in package.lower().split(".") if seg not in GENERIC_SEGMENTS]
    if not words or not segments:
        return False

    def is_segment(word: str) -> bool:
        return any(fuzz.ratio(word, segment) >= SAME_NAME for segment in segments)

    return is_segment("".join(words)) or all(is_segment(word) for word in words)
