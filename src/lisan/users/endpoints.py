from __future__ import annotations

from fastapi import APIRouter

from lisan.core.http import JsonResponse, json_response
from lisan.deps import CurrentUser
from lisan.users.service import current_user_view

router = APIRouter(tags=["users"])


@router.get("/v1/users/me")
async def get_me(user: CurrentUser) -> JsonResponse:
    # Everything needed came with the session look-up: no further query.
    view = current_user_view(user.user_id, user.locale, user.speech_rate, user.wake_word)
    return json_response(view)
