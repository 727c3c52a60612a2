from __future__ import annotations

import uuid

from lisan.core.locale import Locale
from lisan.core.schemas import ResponseModel


class Preferences(ResponseModel):
    speech_rate: int
    wake_word: str


class CurrentUserView(ResponseModel):
    user_id: uuid.UUID
    locale: Locale
    preferences: Preferences
