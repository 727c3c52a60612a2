from __future__ import annotations

from enum import StrEnum

from lisan.core.locale import Locale
from lisan.core.schemas import ResponseModel


class PhraseKey(StrEnum):
    """The closed set of pre-synthesised phrases (the phone holds audio for each)."""

    ACK = "ACK"
    STILL_WORKING = "STILL_WORKING"
    RETRY = "RETRY"
    CONFIRM = "CONFIRM"
    ERR_NETWORK = "ERR_NETWORK"
    ERR_TOO_SLOW = "ERR_TOO_SLOW"
    ERR_REJECTED = "ERR_REJECTED"
    ERR_BILLING = "ERR_BILLING"


class PhraseCatalog(ResponseModel):
    language: Locale
    phrases: dict[PhraseKey, str]
