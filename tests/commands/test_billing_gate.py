"""LISAN_BILLING_ENFORCEMENT=enforced: a command runs only on an ACTIVE or TRIAL subscription
within its quota; otherwise 200 REJECTED (`subscription_inactive`, speak_code ERR_BILLING)
before any provider call; a subscription store that cannot be read is 503 (rule 8)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.core.settings import Settings
from lisan.db.types import utcnow
from lisan.testing.openai_script import DEFAULT_PLAN, Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.answers import assert_error, assert_retry_after
from tests.fixtures.app import lisan_app
from tests.fixtures.billing import entitlement_of, subscribe
from tests.fixtures.cases import Cases
from tests.fixtures.commands import app_with, command, command_body, post, raw_body
from tests.fixtures.devices import ready_device
from tests.fixtures.rows import command_rows, subscriptions_unreadable

ENFORCED = {"billing_enforcement": "enforced"}


def assert_billing_refusal(body: dict[str, object]) -> None:
    assert body == {
        "command_id": body["command_id"],
        "status": "REJECTED",
        "reprompt_reason": "subscription_inactive",
        "speak_code": "ERR_BILLING",
    }


async def test_without_a_subscription_nothing_runs(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    async with app_with(settings_factory, fake_openai.base_url, **ENFORCED) as client:
        device = await ready_device(client)
        response = await command(client, device, command_body())
        entitlement = await entitlement_of(client, device)
    assert response.status_code == 200, response.text
    assert_billing_refusal(response.json())
    assert fake_openai.calls == 0
    assert entitlement["commands_used"] == 0
    rows = await command_rows(admin_engine)
    assert (rows["command_events"], rows["billed_commands"]) == (1, 0)


NOT_ENTITLED = {
    "PAST_DUE": ("PAST_DUE", None),
    "CANCELED": ("CANCELED", None),
    "INACTIVE": ("INACTIVE", None),
    "expired ACTIVE": ("ACTIVE", -timedelta(days=1)),
    "expired TRIAL": ("TRIAL", -timedelta(minutes=1)),
}
ENTITLED = {
    "ACTIVE": ("ACTIVE", None),
    "ACTIVE renewing": ("ACTIVE", timedelta(days=20)),
    "TRIAL": ("TRIAL", timedelta(days=3)),
}


async def test_only_an_active_or_trial_subscription_runs_commands(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """The latest subscription row is the current one: each case records a row, then commands."""
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url, **ENFORCED) as client:
        device = await ready_device(client)
        app = lisan_app(client)
        for entitled, table in ((False, NOT_ENTITLED), (True, ENTITLED)):
            for name, (status, renews_in) in table.items():
                renews_at = utcnow() + renews_in if renews_in is not None else None
                await subscribe(app, device.user_id, status, renews_at)
                calls = fake_openai.calls
                with cases.case(name):
                    response = await command(client, device, command_body())
                    assert response.status_code == 200, response.text
                    if entitled:
                        assert response.json()["status"] == "ACCEPTED"
                        assert fake_openai.calls == calls + 2
                    else:
                        assert_billing_refusal(response.json())
                        assert fake_openai.calls == calls
    cases.check()


async def test_an_exhausted_quota_is_refused(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    async with app_with(settings_factory, fake_openai.base_url, **ENFORCED) as client:
        device = await ready_device(client)
        await subscribe(lisan_app(client), device.user_id, "ACTIVE", quota=2)
        answers = [(await command(client, device, command_body())).json() for _ in range(3)]
        entitlement = await entitlement_of(client, device)
    assert [a["status"] for a in answers[:2]] == ["ACCEPTED", "ACCEPTED"]
    assert_billing_refusal(answers[2])
    assert fake_openai.transcriptions.calls == 2
    assert (entitlement["command_quota"], entitlement["commands_used"]) == (2, 2)


async def test_a_replay_is_not_refused_when_the_quota_has_run_out(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """The retry of a command the user was billed for is its answer, not a new command."""
    raw, key = raw_body(command_body()), uuid.uuid4()
    async with app_with(settings_factory, fake_openai.base_url, **ENFORCED) as client:
        device = await ready_device(client)
        await subscribe(lisan_app(client), device.user_id, "ACTIVE", quota=1)
        first = await post(client, device.headers, raw, key)
        again = await post(client, device.headers, raw, key)
    assert first.json()["status"] == "ACCEPTED"
    assert again.content == first.content
    assert again.headers["idempotent-replayed"] == "true"


async def test_an_unreadable_subscription_store_is_503_and_the_key_runs_again(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    raw, key = raw_body(command_body()), uuid.uuid4()
    async with app_with(settings_factory, fake_openai.base_url, **ENFORCED) as client:
        device = await ready_device(client)
        await subscribe(lisan_app(client), device.user_id, "ACTIVE")
        async with subscriptions_unreadable(admin_engine):
            unverified = await post(client, device.headers, raw, key)
        verified = await post(client, device.headers, raw, key)
    assert_error(unverified, 503)
    assert_retry_after(unverified)
    assert verified.status_code == 200
    assert verified.json()["status"] == "ACCEPTED"
    assert "idempotent-replayed" not in verified.headers
    assert fake_openai.transcriptions.calls == 1


async def test_without_enforcement_no_subscription_is_needed(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        await subscribe(lisan_app(client), device.user_id, "CANCELED", quota=0)
        async with subscriptions_unreadable(admin_engine):
            unreadable = await command(client, device, command_body())
        canceled = await command(client, device, command_body())
    assert unreadable.json()["status"] == canceled.json()["status"] == "ACCEPTED"


async def test_reusing_a_request_id_does_not_dodge_the_quota(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    request_id = str(uuid.uuid4())
    async with app_with(settings_factory, fake_openai.base_url, **ENFORCED) as client:
        device = await ready_device(client)
        await subscribe(lisan_app(client), device.user_id, "ACTIVE", quota=1)
        answers = [
            (await command(client, device, command_body(), **{"X-Request-ID": request_id})).json()
            for _ in range(3)
        ]
        entitlement = await entitlement_of(client, device)
    assert answers[0]["status"] == "ACCEPTED"
    assert entitlement["commands_used"] == 1  # billed once; the rest refused, not merged
    assert [a["status"] for a in answers[1:]] == ["REJECTED", "REJECTED"]


async def test_concurrent_commands_do_not_overrun_the_quota(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.default = Answer.plan(DEFAULT_PLAN, delay_s=0.3)
    async with app_with(settings_factory, fake_openai.base_url, **ENFORCED) as client:
        device = await ready_device(client)
        await subscribe(lisan_app(client), device.user_id, "ACTIVE", quota=1)
        responses = await asyncio.gather(
            *(command(client, device, command_body()) for _ in range(5))
        )
        entitlement = await entitlement_of(client, device)
    statuses = sorted(r.json()["status"] for r in responses)
    assert statuses == ["ACCEPTED"] + ["REJECTED"] * 4
    assert entitlement["commands_used"] == 1
