from __future__ import annotations

import pytest

from lisan.core.settings import ProviderName, Settings, SettingsError, load_settings


def test_defaults_are_the_documented_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(__import__("os").environ):
        if name.startswith("LISAN_"):
            monkeypatch.delenv(name)
    settings = load_settings()
    assert settings.database_url == "sqlite+aiosqlite:///./var/lisan.db"
    assert settings.redis_url is None
    assert settings.provider is ProviderName.LOCAL
    assert str(settings.openai_base_url) == "https://api.openai.com/v1"
    assert (settings.transcribe_timeout_s, settings.plan_timeout_s) == (8, 6)
    assert settings.confidence_threshold == 0.5
    assert (settings.session_ttl_s, settings.refresh_grace_s) == (2_592_000, 604_800)
    assert settings.billing_enforcement.value == "disabled"
    assert settings.rate_limit_register == "10/minute"
    assert settings.rate_limit_job_lookup == "60/minute"
    assert settings.rate_limit_commands == "30/minute"
    assert settings.rate_limit_user == "300/minute"
    assert (settings.deletion_max_attempts, settings.deletion_backoff_s) == (5, 2)
    assert settings.run_worker is True
    assert settings.alert_webhook_url is None
    assert (settings.log_level.value, settings.log_format.value) == ("INFO", "json")


def test_environment_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LISAN_PROVIDER", "openai")
    monkeypatch.setenv("LISAN_RUN_WORKER", "false")
    monkeypatch.setenv("LISAN_RATE_LIMIT_USER", "100 per hour")
    settings = load_settings()
    assert settings.provider is ProviderName.OPENAI
    assert settings.run_worker is False
    assert settings.rate_limit_user == "100 per hour"


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("LISAN_DATABASE_URL", "mysql://root@localhost/lisan"),
        ("LISAN_REDIS_URL", "http://localhost:6379"),
        ("LISAN_PROVIDER", "whisper"),
        ("LISAN_OPENAI_BASE_URL", "not a url"),
        ("LISAN_TRANSCRIBE_TIMEOUT_S", "0"),
        ("LISAN_PLAN_TIMEOUT_S", "inf"),
        ("LISAN_CONFIDENCE_THRESHOLD", "1.5"),
        ("LISAN_SESSION_TTL_S", "abc"),
        # Upper bounds: past them a value overflows date arithmetic or a timer.
        ("LISAN_SESSION_TTL_S", "1000000000000"),
        ("LISAN_REFRESH_GRACE_S", "99999999999"),
        ("LISAN_TRANSCRIBE_TIMEOUT_S", "1e12"),
        ("LISAN_DELETION_BACKOFF_S", "1e9"),
        ("LISAN_DELETION_MAX_ATTEMPTS", "1000000"),
        ("LISAN_BILLING_ENFORCEMENT", "sometimes"),
        ("LISAN_RATE_LIMIT_COMMANDS", "lots"),
        ("LISAN_DELETION_MAX_ATTEMPTS", "0"),
        ("LISAN_RUN_WORKER", "maybe"),
        ("LISAN_ALERT_WEBHOOK_URL", "ftp://x"),
        ("LISAN_LOG_LEVEL", "LOUD"),
        ("LISAN_LOG_FORMAT", "xml"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as raised:
        load_settings()
    message = str(raised.value)
    assert message.startswith(f"{variable}: ")
    assert "\n" not in message


def test_settings_are_immutable() -> None:
    settings = Settings()
    with pytest.raises(Exception, match="frozen"):
        settings.provider = ProviderName.OPENAI  # type: ignore[misc]
