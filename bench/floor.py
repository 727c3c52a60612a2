"""The floor for GET /v1/users/me: a bare Starlette endpoint doing the same database work.

Same engine settings and the same one-query token look-up (lisan.auth.repository), with no
middleware, no dependency injection, no rate limiting and no validation beyond the look-up:
the fastest this route could be on this stack. Run by bench/identity.py under uvicorn.
"""

from __future__ import annotations

import os

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from lisan.auth.repository import principal_by_hash
from lisan.core import tokens
from lisan.core.database import create_engine

engine = create_engine(os.environ["LISAN_DATABASE_URL"])


async def me(request: Request) -> Response:
    token = request.headers.get("authorization", "")[len("Bearer ") :]
    row = await principal_by_hash(engine, tokens.token_hash(token))
    if row is None or row.install_id != request.headers.get("x-install-id"):
        return Response(status_code=401)
    body = {
        "user_id": str(row.user_id),
        "locale": row.account_locale,
        "preferences": {"speech_rate": row.account_speech_rate, "wake_word": row.account_wake_word},
    }
    return Response(orjson.dumps(body), media_type="application/json")


app = Starlette(routes=[Route("/v1/users/me", me)])
