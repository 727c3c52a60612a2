"""The two languages Lisan speaks: shared by users, commands, phrases and the providers, so it
lives here rather than in any one domain."""

from __future__ import annotations

from enum import StrEnum


class Locale(StrEnum):
    AM_ET = "am-ET"
    EN_US = "en-US"

    @property
    def language(self) -> str:
        """The ISO 639-1 code: what a transcriber is asked for, and what it says it heard."""
        return self.value.split("-", 1)[0]
