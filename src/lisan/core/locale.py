"""The two languages Lisan speaks: shared by users, commands, phrases and the providers, so it
lives here rather than in any one domain."""

from __future__ import annotations

from enum import StrEnum


class Locale(StrEnum):
    AM_ET = "am-ET"
    EN_US = "en-US"
