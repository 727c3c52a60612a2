"""Every `LISAN_*` setting, validated once at start (see the settings table in README.md)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import AnyHttpUrl, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_RATE_LIMIT = re.compile(
    r"^\s*\d+\s*(/|\s+per\s+)\s*(\d+\s+)?(second|minute|hour|day|month|year)s?\s*$"
)

# Upper bounds: a value past them is a typo, and some would overflow date arithmetic or a
# timer (a session TTL of 10^12 s is past year 9999).
PositiveSeconds = Annotated[float, Field(gt=0, le=3600, allow_inf_nan=False)]
YEAR_S = 365 * 24 * 3600


class ProviderName(StrEnum):
    LOCAL = "local"
    OPENAI = "openai"


class TranscribeConfidence(StrEnum):
    """Where a remote transcriber's confidence comes from (lisan.providers.openai)."""

    AUTO = "auto"  # opt-in: an answer without a score is asked again for segments (`openai`)
    LOGPROBS = "logprobs"  # `response_format=json`, `include[]=logprobs` (OpenAI's gpt-4o-*)
    SEGMENTS = "segments"  # `response_format=verbose_json` (Whisper servers, OpenAI's whisper-1)


class PlanFormat(StrEnum):
    """How the plan request asks for JSON (lisan.providers.openai.planning; README's server
    table says which suits which server)."""

    JSON_SCHEMA = "json_schema"  # response_format json_schema, strict (OpenAI, vLLM, llama.cpp)
    JSON_OBJECT = "json_object"  # response_format json_object with the schema (llama-cpp-python)
    PROMPT = "prompt"  # no response_format: the schema in the system prompt


class BillingEnforcement(StrEnum):
    DISABLED = "disabled"
    ENFORCED = "enforced"


class LogFormat(StrEnum):
    JSON = "json"
    CONSOLE = "console"


class LogLevel(StrEnum):
    DEBUG = "DEBUG"
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"
    CRITICAL = "CRITICAL"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="LISAN_", extra="ignore", frozen=True)

    database_url: str = "sqlite+aiosqlite:///./var/lisan.db"
    redis_url: str | None = None
    provider: ProviderName = ProviderName.LOCAL
    openai_base_url: AnyHttpUrl = AnyHttpUrl("https://api.openai.com/v1")
    openai_api_key: str | None = Field(default=None, repr=False)
    # The transcriber and the planner may be different servers: each call's own endpoint and
    # key, the shared ones when unset (an empty key sends none). The shared key goes only to the
    # shared URL's origin (`Settings._endpoint`).
    openai_transcribe_base_url: AnyHttpUrl | None = None
    openai_transcribe_api_key: str | None = Field(default=None, repr=False)
    openai_plan_base_url: AnyHttpUrl | None = None
    openai_plan_api_key: str | None = Field(default=None, repr=False)
    openai_transcribe_model: str = Field(default="gpt-4o-transcribe", min_length=1)
    openai_plan_model: str = Field(default="gpt-4.1-mini", min_length=1)
    openai_transcribe_confidence: TranscribeConfidence = TranscribeConfidence.LOGPROBS
    # How the plan request asks for its JSON (lisan.providers.openai.planning), and its bound.
    openai_plan_format: PlanFormat = PlanFormat.JSON_SCHEMA
    plan_max_tokens: int = Field(default=1536, ge=256, le=32_768)
    # With a remote provider, the rules plan first and a model only what they cannot
    # (lisan.commands.rules_first).
    plan_local_first: bool = True
    transcribe_timeout_s: PositiveSeconds = 8.0
    plan_timeout_s: PositiveSeconds = 6.0
    # The bulkheads in front of a remote provider (lisan.providers.bulkhead), per process: one
    # per call, each sized by its own setting, else by LISAN_PROVIDER_MAX_CONCURRENCY.
    provider_max_concurrency: int = Field(default=64, ge=1, le=10_000)
    transcribe_max_concurrency: int | None = Field(default=None, ge=1, le=10_000)
    plan_max_concurrency: int | None = Field(default=None, ge=1, le=10_000)
    provider_queue_wait_s: PositiveSeconds = 2.0
    # The slots one user may hold (lisan.providers.bulkhead); unset: a quarter of them, at least 1.
    provider_max_per_user: int | None = Field(default=None, ge=1, le=10_000)
    confidence_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    session_ttl_s: int = Field(default=2_592_000, ge=1, le=10 * YEAR_S)
    refresh_grace_s: int = Field(default=604_800, ge=0, le=YEAR_S)
    billing_enforcement: BillingEnforcement = BillingEnforcement.DISABLED
    rate_limit_register: str = "10/minute"
    rate_limit_job_lookup: str = "60/minute"
    rate_limit_commands: str = "30/minute"
    rate_limit_user: str = "300/minute"
    # Per client IP in front of credential look-ups, per process: generous, because many
    # phones share one carrier NAT address; it only caps what one address costs the database.
    rate_limit_ip: str = "3000/minute"
    storage_dir: Path = Path("./var/objects")
    deletion_max_attempts: int = Field(default=5, ge=1, le=100)
    deletion_backoff_s: PositiveSeconds = 2.0
    run_worker: bool = True
    telemetry_flush_timeout_s: PositiveSeconds = 30.0  # the shutdown's bound on the flush
    # How long a client may take to send a request (lisan.server.protocol, lisan.server.edge): its
    # headers, from the connection's opening or the request's first byte; each chunk of its
    # body after the one before; its whole body.
    header_timeout_s: PositiveSeconds = 10.0
    body_idle_timeout_s: PositiveSeconds = 10.0
    body_timeout_s: PositiveSeconds = 60.0
    # How long an idle keep-alive connection stays open (lisan.server.protocol). Longer than the
    # proxy's own idle bound on its upstream connections (nginx: 60 s), so that the proxy, not
    # Lisan, closes an idle one: otherwise the proxy may send a request on a connection Lisan is
    # closing, and the phone gets a 502. Whole seconds, as uvicorn's and nginx's own.
    keepalive_timeout_s: int = Field(default=75, ge=1, le=3600)
    # Prometheus metrics on a listener of their own (lisan.server.metrics_listener); off unless set.
    metrics_port: int | None = Field(default=None, ge=1, le=65535)
    metrics_host: str = Field(default="127.0.0.1", min_length=1)
    metrics_dir: Path | None = None  # --workers N: where the processes write their values
    alert_webhook_url: AnyHttpUrl | None = None
    log_level: LogLevel = LogLevel.INFO
    log_format: LogFormat = LogFormat.JSON

    @field_validator("database_url")
    @classmethod
    def _async_database_url(cls, value: str) -> str:
        if not value.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            raise ValueError(
                "must be an async SQLAlchemy URL: sqlite+aiosqlite:///PATH "
                "or postgresql+asyncpg://USER@HOST/DB"
            )
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        if not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("must be a redis:// or rediss:// URL")
        return value

    @field_validator(
        "rate_limit_register",
        "rate_limit_job_lookup",
        "rate_limit_commands",
        "rate_limit_user",
        "rate_limit_ip",
    )
    @classmethod
    def _rate_limit(cls, value: str) -> str:
        if not _RATE_LIMIT.match(value):
            raise ValueError("must read like '10/minute' or '100 per hour'")
        return value.strip()

    @field_validator("transcribe_timeout_s", "plan_timeout_s", "deletion_backoff_s")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number of seconds")
        return value

    @property
    def transcribe_endpoint(self) -> Endpoint:
        return self._endpoint(self.openai_transcribe_base_url, self.openai_transcribe_api_key)

    @property
    def plan_endpoint(self) -> Endpoint:
        return self._endpoint(self.openai_plan_base_url, self.openai_plan_api_key)

    def _endpoint(self, own_url: AnyHttpUrl | None, own_key: str | None) -> Endpoint:
        """A call's own URL, else the shared one; its own key, else the shared key only when
        the call goes to the shared URL's origin (scheme, host and port, as an HTTP client
        keeps `Authorization` across a redirect only within one): LISAN_OPENAI_API_KEY is
        for the server of LISAN_OPENAI_BASE_URL, and a call moved to another server without
        a key of its own sends none."""
        url = own_url or self.openai_base_url
        shared = self.openai_api_key if _same_origin(url, self.openai_base_url) else None
        return Endpoint(str(url).rstrip("/"), _key(own_key, shared))

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where one provider call goes: its base URL (no trailing slash) and its key, if any."""

    base_url: str
    api_key: str | None = field(default=None, repr=False)


def _same_origin(a: AnyHttpUrl, b: AnyHttpUrl) -> bool:
    """Scheme, host and port alike (the host as written, case aside; a port by default its
    scheme's): `localhost` and `127.0.0.1` are two origins."""
    return (a.scheme, a.host, a.port) == (b.scheme, b.host, b.port)


def _key(own: str | None, shared: str | None) -> str | None:
    """A call's own key, else the shared one; an empty own key means none at all."""
    if own is None:
        return shared or None
    return own or None


class SettingsError(Exception):
    """A setting has a bad value; the message names the variable and fits on one line."""


def load_settings() -> Settings:
    """Read the environment, turning a validation failure into one line naming the variable."""
    try:
        return Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else "?"
        message = str(first["msg"]).removeprefix("Value error, ")
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise SettingsError(f"LISAN_{field.upper()}: {message}{more}") from None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return load_settings()
