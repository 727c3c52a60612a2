from __future__ import annotations

from typing import Annotated, Literal

from pydantic import StringConstraints

from lisan.core.locale import Locale
from lisan.core.schemas import NotNull, ResponseModel, TolerantModel

INSTALL_ID_PATTERN = r"^[A-Za-z0-9._:-]{16,128}$"

InstallId = Annotated[str, StringConstraints(pattern=INSTALL_ID_PATTERN)]
Text128 = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class DeviceRegistration(TolerantModel):
    install_id: InstallId
    model: Annotated[Text128 | None, NotNull] = None
    locale: Annotated[Locale | None, NotNull] = None
    phone_hash: Annotated[Text128 | None, NotNull] = None  # deprecated: accepted, never stored


class SessionGrant(ResponseModel):
    status: Literal["registered", "refreshed"]
    session_token: str
    expires_in: int
