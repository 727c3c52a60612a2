"""The four statuses through the route, each for every reason it has: ACCEPTED;
CONFIRMATION_REQUIRED (a destructive step, the planner asking, no confidence score); REPROMPT
(low_confidence, empty_transcript, no_speech); REJECTED for every plan-safety rule and for a
planner that declines. REJECTED and REPROMPT carry `reprompt_reason` and never a plan."""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from lisan.core.settings import Settings
from lisan.testing.openai_script import DEFAULT_PLAN, Answer
from lisan.testing.openai_server import FakeOpenAI
from lisan.testing.speech import hum, silence
from tests.fixtures.app import lisan_app
from tests.fixtures.cases import Cases
from tests.fixtures.commands import (
    TRANSCRIPT,
    app_with,
    command,
    command_body,
    plan,
    say,
    speech_pcm,
    step,
    transcription,
)
from tests.fixtures.devices import GMAIL, TELEGRAM, grant, ready_device
from tests.fixtures.load import until

Json = Any
STEP_FIELDS = {"step_id", "action_type", "target_node_id", "payload", "is_destructive"}


async def run_one(
    settings_factory: Callable[..., Settings],
    fake: FakeOpenAI,
    body: dict[str, Json] | None = None,
    *,
    packages: tuple[str, ...] = (TELEGRAM,),
    **settings: Any,
) -> dict[str, Json]:
    """One command from a device that granted `packages`; its 200 body."""
    async with app_with(settings_factory, fake.base_url, **settings) as client:
        device = await ready_device(client, *packages)
        response = await command(client, device, body or command_body())
    assert response.status_code == 200, response.text
    answer: dict[str, Json] = response.json()
    return answer


def assert_refused(body: dict[str, Json], status: str, reason: str, speak_code: str) -> None:
    assert (body["status"], body.get("reprompt_reason"), body.get("speak_code")) == (
        status,
        reason,
        speak_code,
    )
    assert "action_plan" not in body


# --- ACCEPTED -----------------------------------------------------------------------------------


async def test_accepted_is_a_plan_to_run_with_ack(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.then(
        Answer.plan(
            plan(
                step("TEXT_INPUT", "n3", "selam"),
                step("TAP", "n6"),
                step("OPEN_APP", None, "Telegram"),
                speech_response_text="Typing\u200b “selam”\n",
            )
        )
    )
    say(fake_openai, "type selam to abebe and open telegram")
    # The planner's plan is the subject: it is asked whatever the rules would plan.
    body = await run_one(settings_factory, fake_openai, plan_local_first=False)
    assert (body["status"], body["speak_code"]) == ("ACCEPTED", "ACK")
    assert "reprompt_reason" not in body
    assert "speech_response_text" not in body  # the planner's words are never spoken
    action_plan = body["action_plan"]
    assert action_plan["package_name"] == TELEGRAM
    assert action_plan["requires_user_confirmation"] is False
    without_ids = [{k: v for k, v in s.items() if k != "step_id"} for s in action_plan["steps"]]
    assert without_ids == [
        {"action_type": "TEXT_INPUT", "target_node_id": "n3", "payload": "selam",
         "is_destructive": False},
        {"action_type": "TAP", "target_node_id": "n6", "is_destructive": False},
        {"action_type": "OPEN_APP", "payload": "Telegram", "is_destructive": False},
    ]  # fmt: skip


async def test_keys_the_rules_do_not_know_never_reach_the_phone(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.then(
        Answer.plan(plan(step(note="rm -rf /", step_id="mine"), rogue={"run": "this"}))
    )
    say(fake_openai, "tap chats")
    body = await run_one(settings_factory, fake_openai)
    assert body["status"] == "ACCEPTED"
    (only,) = body["action_plan"]["steps"]
    assert set(only) <= STEP_FIELDS
    assert only["step_id"] != "mine"


async def test_plan_and_step_ids_are_fresh_uuids_every_time(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    two_steps = Answer.plan(plan(step("TAP", "n2"), step("TAP", "n6")))
    fake_openai.completions.default = two_steps
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        bodies = [(await command(client, device, command_body())).json() for _ in range(2)]
    plan_ids = [uuid.UUID(b["action_plan"]["plan_id"]) for b in bodies]
    step_ids = [uuid.UUID(s["step_id"]) for b in bodies for s in b["action_plan"]["steps"]]
    command_ids = {b["command_id"] for b in bodies}
    assert len(set(plan_ids)) == 2
    assert len(set(step_ids)) == 4
    assert len(command_ids) == 2
    assert {u.version for u in plan_ids + step_ids} == {4}


async def test_open_app_naming_a_granted_package_is_accepted(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.then(Answer.plan(plan(step("OPEN_APP", None, GMAIL), package=GMAIL)))
    say(fake_openai, "open google mail")
    body = await run_one(settings_factory, fake_openai, packages=(TELEGRAM, GMAIL))
    assert body["status"] == "ACCEPTED"


# --- CONFIRMATION_REQUIRED ---------------------------------------------------------------------


CONFIRMATIONS = {
    "en-US": ("en-US", "en-US", "Tap “Delete chat”? Say yes to go ahead."),
    "am-ET": ("am-ET", "am-ET", "«Delete chat»ን ልጫን? ለመቀጠል «አዎ» ይበሉ።"),
    "the default language": (None, "am-ET", "«Delete chat»ን ልጫን? ለመቀጠል «አዎ» ይበሉ።"),
}
WORDS = {"en-US": "delete this chat", "am-ET": "ይህን ውይይት ሰርዝ"}


async def test_a_destructive_step_is_confirmed_by_name_in_the_users_language(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.default = Answer.plan(
        plan(step("TAP", "n6"), step("TAP", "n7", destructive=True))
    )
    say(fake_openai, "tap abebe and delete the chat")
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for name, (language, spoken_in, question) in CONFIRMATIONS.items():
            body = command_body(speech_pcm(WORDS[spoken_in], spoken_in), language=language)
            with cases.case(name):
                answer = (await command(client, device, body)).json()
                assert (answer["status"], answer["speak_code"]) == (
                    "CONFIRMATION_REQUIRED",
                    "CONFIRM",
                )
                assert answer["speech_response_text"] == question
                assert answer["action_plan"]["requires_user_confirmation"] is True
                assert [s["is_destructive"] for s in answer["action_plan"]["steps"]] == [
                    False,
                    True,
                ]
                assert "reprompt_reason" not in answer
    cases.check()


async def test_a_step_on_a_destructive_looking_node_is_confirmed_whatever_the_planner_says(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.then(Answer.plan(plan(step("TAP", "n4", destructive=False))))
    answer = await run_one(settings_factory, fake_openai)
    assert answer["status"] == "CONFIRMATION_REQUIRED"
    assert answer["speech_response_text"] == "Tap “Send”? Say yes to go ahead."
    assert answer["action_plan"]["steps"][0]["is_destructive"] is True


async def test_the_planner_asking_for_confirmation_is_confirmation_required(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.then(Answer.plan(plan(step("TAP", "n6"), needs_confirmation=True)))
    answer = await run_one(settings_factory, fake_openai)
    assert (answer["status"], answer["speak_code"]) == ("CONFIRMATION_REQUIRED", "CONFIRM")
    assert answer["speech_response_text"] == "Tap “Abebe”? Say yes to go ahead."
    assert answer["action_plan"]["requires_user_confirmation"] is True
    assert answer["action_plan"]["steps"][0]["is_destructive"] is False


NO_SCORE = {
    "no logprobs": transcription(),
    "empty logprobs": {"text": TRANSCRIPT, "logprobs": []},
    "null logprobs": {"text": TRANSCRIPT, "logprobs": None},
}


async def test_no_confidence_score_is_confirmation_required(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for name, heard in NO_SCORE.items():
            fake_openai.transcriptions.then(Answer.json(heard))
            with cases.case(name):
                answer = (await command(client, device, command_body())).json()
                assert (answer["status"], answer["speak_code"]) == (
                    "CONFIRMATION_REQUIRED",
                    "CONFIRM",
                )
                assert answer["speech_response_text"] == "Open “telegram”? Say yes to go ahead."
                assert answer["action_plan"]["requires_user_confirmation"] is True
    cases.check()


# --- REPROMPT -----------------------------------------------------------------------------------


async def test_low_confidence_is_reprompted_before_planning(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.transcriptions.then(Answer.json(transcription(TRANSCRIPT, -1.0, -0.5)))
    answer = await run_one(settings_factory, fake_openai)  # exp(-0.75) = 0.47
    assert_refused(answer, "REPROMPT", "low_confidence", "RETRY")
    assert "speech_response_text" not in answer
    assert (fake_openai.transcriptions.calls, fake_openai.completions.calls) == (1, 0)


async def test_the_vocabulary_prompt_echoed_back_is_reprompted_never_planned(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """A transcript that is the user's vocabulary prompt echoed back is REPROMPTed
    `vocabulary_echo`, confident or not: the planner is never called, so the vocabulary never
    reaches it."""
    from tests.fixtures.vocabulary import created

    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for term in ("Abebe Kebede", "Selam"):
            await created(client, device, term)
        fake_openai.transcriptions.then(Answer.json(transcription("Abebe Kebede, Selam.", -0.01)))
        answer = (await command(client, device, command_body())).json()
    assert_refused(answer, "REPROMPT", "vocabulary_echo", "RETRY")
    assert (fake_openai.transcriptions.calls, fake_openai.completions.calls) == (1, 0)
    assert fake_openai.transcriptions.last.field("prompt") == "Abebe Kebede, Selam"


@pytest.mark.parametrize(
    ("threshold", "logprobs", "status"),
    [
        (0.95, (-0.05, -0.15), "REPROMPT"),  # 0.905: heard well, but not well enough here
        (0.3, (-1.0, -1.0), "ACCEPTED"),  # 0.368: good enough here
        (0.5, (math.log(0.5), math.log(0.5)), "ACCEPTED"),  # at the threshold is not below it
        (0.5, (math.log(0.49),), "REPROMPT"),
    ],
    ids=["0.95 vs 0.905", "0.3 vs 0.368", "0.5 vs 0.5", "0.5 vs 0.49"],
)
async def test_the_confidence_threshold_is_the_setting(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    threshold: float,
    logprobs: tuple[float, ...],
    status: str,
) -> None:
    fake_openai.transcriptions.then(Answer.json(transcription(TRANSCRIPT, *logprobs)))
    answer = await run_one(settings_factory, fake_openai, confidence_threshold=threshold)
    assert answer["status"] == status
    if status == "REPROMPT":
        assert_refused(answer, "REPROMPT", "low_confidence", "RETRY")


async def test_an_empty_transcript_is_reprompted_before_planning(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for name, text in {"spaces": "  ", "empty": "", "whitespace": "\n\t "}.items():
            fake_openai.transcriptions.then(Answer.json(transcription(text, -0.01)))
            with cases.case(name):
                answer = (await command(client, device, command_body())).json()
                assert_refused(answer, "REPROMPT", "empty_transcript", "RETRY")
    cases.check()
    assert (fake_openai.transcriptions.calls, fake_openai.completions.calls) == (3, 0)


async def test_no_speech_is_reprompted_without_any_provider_call(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    quiet = {"silence": silence(2.0), "hum": hum(2.0), "loud hum": hum(0.4, amplitude=200)}
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for name, pcm in quiet.items():
            with cases.case(name):
                answer = (await command(client, device, command_body(pcm))).json()
                assert_refused(answer, "REPROMPT", "no_speech", "RETRY")
    cases.check()
    assert fake_openai.calls == 0


# --- REJECTED -----------------------------------------------------------------------------------


def _without(fields: dict[str, Json], key: str) -> dict[str, Json]:
    return {k: v for k, v in fields.items() if k != key}


REJECTIONS: dict[str, tuple[Answer, str]] = {
    "an unknown action type": (Answer.plan(plan(step("SWIPE"))), "action_not_allowed"),
    "an action type in lower case": (Answer.plan(plan(step("tap"))), "action_not_allowed"),
    "a shell command as the action": (
        Answer.plan(plan(step("TAP", "n2"), step("EXEC", None, "rm -rf /"))),
        "action_not_allowed",
    ),
    "no is_destructive": (
        Answer.plan(plan(_without(step(), "is_destructive"))),
        "missing_destructive_flag",
    ),
    "is_destructive as a string": (
        Answer.plan(plan(step(destructive="false"))),  # type: ignore[arg-type]
        "missing_destructive_flag",
    ),
    "is_destructive null": (
        Answer.plan(plan({**step(), "is_destructive": None})),
        "missing_destructive_flag",
    ),
    "a target not on the screen": (Answer.plan(plan(step("TAP", "n99"))), "unknown_target_node"),
    "a target in brackets": (Answer.plan(plan(step("TAP", "[n2]"))), "unknown_target_node"),
    "an app not granted": (Answer.plan(plan(package=GMAIL)), "app_not_granted"),
    "opening an app not granted": (
        Answer.plan(plan(step("OPEN_APP", None, GMAIL))),
        "app_not_granted",
    ),
    "21 steps": (Answer.plan(plan(*[step()] * 21)), "too_many_steps"),
    "a JSON array": (Answer.content("[]"), "invalid_plan"),
    "a JSON string": (Answer.content('"open telegram"'), "invalid_plan"),
    "a JSON number": (Answer.content("42"), "invalid_plan"),
    "JSON null": (Answer.content("null"), "invalid_plan"),
    "steps not a list": (Answer.plan(plan(steps={"0": step()})), "invalid_plan"),
    "typing without text": (Answer.plan(plan(step("TEXT_INPUT", "n3", None))), "invalid_plan"),
}


async def test_a_plan_that_breaks_a_rule_is_rejected_and_never_reaches_the_phone(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for name, (answer, reason) in REJECTIONS.items():
            fake_openai.completions.then(answer)
            with cases.case(name):
                response = await command(client, device, command_body())
                assert response.status_code == 200, response.text
                body = response.json()
                assert_refused(body, "REJECTED", reason, "ERR_REJECTED")
                assert "speech_response_text" not in body
    cases.check()


async def test_twenty_steps_are_accepted(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """A plan of twenty steps that stay on the screen sent (scrolls) is ACCEPTED: the bound is
    twenty. (Twenty taps are not: after a tap that may navigate, the later ones are asked.)"""
    fake_openai.completions.then(Answer.plan(plan(*[step("SCROLL", None, "down")] * 20)))
    say(fake_openai, "scroll all the way down")
    body = await run_one(settings_factory, fake_openai, plan_local_first=False)
    assert body["status"] == "ACCEPTED"
    assert len(body["action_plan"]["steps"]) == 20


async def test_a_revoked_grant_rejects_the_plan(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        revoked = await client.post(
            "/v1/app-grants",
            json={"package_name": TELEGRAM, "granted": False},
            headers=device.headers,
        )
        assert revoked.status_code == 200, revoked.text
        after_revoke = await command(client, device, command_body())
        await grant(client, device, TELEGRAM)
        after_regrant = await command(client, device, command_body())
    assert_refused(after_revoke.json(), "REJECTED", "app_not_granted", "ERR_REJECTED")
    assert after_regrant.json()["status"] == "ACCEPTED"


async def test_a_grant_revoked_while_the_planner_thinks_rejects_its_plan(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """The plan is checked against the grants as they are when its answer is recorded: a grant
    revoked after the command read its grants, while the planner was thinking, rejects it."""
    fake_openai.completions.then(Answer.plan(DEFAULT_PLAN, delay_s=0.5))
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        running = asyncio.create_task(command(client, device, command_body()))
        await until(lambda: fake_openai.completions.calls > 0, 10, "the planner has the request")
        revoked = await client.post(
            "/v1/app-grants",
            json={"package_name": TELEGRAM, "granted": False},
            headers=device.headers,
        )
        assert revoked.status_code == 200, revoked.text
        assert not running.done()
        answered = await running
    assert answered.status_code == 200, answered.text
    assert_refused(answered.json(), "REJECTED", "app_not_granted", "ERR_REJECTED")


DECLINED = {
    "a reason": "I can\u2019t send \u201cmoney\u201d\u200b\nfrom here.",
    "a screen's words": "Your account is locked. Call +1 555 0100 now.",
    "long": "x" * 250,
    "null": None,
}


async def test_a_planner_that_declines_is_nothing_to_do_in_no_words_of_its_own(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for name, said in DECLINED.items():
            fake_openai.completions.then(Answer.plan(plan(steps=[], speech_response_text=said)))
            with cases.case(name):
                body = (await command(client, device, command_body())).json()
                assert_refused(body, "REJECTED", "nothing_to_do", "ERR_REJECTED")
                assert "speech_response_text" not in body  # the ERR_REJECTED phrase speaks
    cases.check()


# A declining plan's `reason`, as a remote planner may write it: anything but a known decline.
NOT_A_DECLINE: dict[str, Json] = {
    "unknown word": "because I said so",
    "list": ["target_not_on_screen"],
    "object": {"reason": "target_not_on_screen"},
    "number": 7,
}


async def test_a_declining_planner_s_reason_that_is_no_decline_is_nothing_to_do(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """A plan of no steps is REJECTED with its `reason` only when that is one the service
    knows: any other JSON there (a word, a list, an object) is `nothing_to_do`, never a 5xx."""
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for name, reason in NOT_A_DECLINE.items():
            fake_openai.completions.then(Answer.plan(plan(steps=[], reason=reason)))
            with cases.case(name):
                response = await command(client, device, command_body())
                assert response.status_code == 200, response.text
                assert_refused(response.json(), "REJECTED", "nothing_to_do", "ERR_REJECTED")
    cases.check()


async def test_refusals_are_final_answers_not_errors(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """A rejected plan is a 200 REJECTED, never a 5xx, and each refusal keeps the contract's
    shape (checked by `command` against openapi.yaml)."""
    fake_openai.completions.then(Answer.plan(plan(step("SWIPE"))))
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        response: httpx.Response = await command(client, device, command_body())
    assert response.status_code == 200
    assert set(response.json()) == {"command_id", "status", "reprompt_reason", "speak_code"}


async def test_the_rules_run_before_the_record_opens_its_write_transaction(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The plan rules run outside any write transaction: while they read the plan, no write
    connection is checked out (on SQLite the write lock is every process's), so a costly plan
    never holds the other requests' writes."""
    from lisan.commands import pipeline
    from lisan.plans.rules import validate_plan as rules

    held: list[int] = []
    async with app_with(settings_factory, fake_openai.base_url) as client:
        writer = lisan_app(client).services.resources.database.writer
        pool = writer.engine.sync_engine.pool

        def watched(*args: Any, **kwargs: Any) -> Any:
            inline = writer.inline is not None and writer.inline.in_transaction
            held.append(pool.checkedout() + inline)  # type: ignore[attr-defined]
            return rules(*args, **kwargs)

        monkeypatch.setattr(pipeline, "validate_plan", watched)
        device = await ready_device(client)
        fake_openai.completions.then(Answer.plan(plan(step("SCROLL", None, "down"))))
        say(fake_openai, "scroll down")
        body = (await command(client, device, command_body())).json()
    assert body["status"] == "ACCEPTED"
    assert held == [0]
