"""What one command carries from step to step of `pipeline`: its inputs (`Command`), what it
read about its user (`Context`), the key it claimed (`Claimed`) and what it has done so far
(`Progress`). Below the steps and `answers`: it imports none of them."""

from __future__ import annotations

import dataclasses
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from lisan.commands.schemas import CommandRequest, CommandResponse, ScreenContext
from lisan.commands.stages import Lap, Planner
from lisan.providers.base import Screen, VoiceProvider


@dataclass(frozen=True, slots=True)
class Command:
    """One command's inputs."""

    command_id: uuid.UUID
    user_id: uuid.UUID
    bill_id: uuid.UUID  # from (user, idempotency key): one bill per command, whatever its retries
    request: CommandRequest
    pcm: bytes
    started: float = field(default_factory=time.perf_counter)


@dataclass(frozen=True, slots=True)
class Context:
    """What a command reads about its user before any provider call."""

    terms: list[str]  # the transcriber's vocabulary bias
    keep_audio: bool  # audio_retention is granted
    apps: list[str]  # the granted packages, as they were before the provider calls
    command_id_taken: bool  # the request id already names another command's event

    def screen(self, sent: ScreenContext, provider: VoiceProvider) -> Screen | None:
        """The screen a provider may see: a granted app's; an ungranted app's only when the
        provider keeps it on this machine (marked not granted); else None (hidden)."""
        granted = sent.current_package in self.apps
        if not (granted or provider.keeps_screens_local):
            return None
        return Screen(sent.current_package, sent.view_tree_summary, granted=granted)


@dataclass(frozen=True, slots=True)
class Claimed:
    """The key is this command's to finish or release (`owner`), with what it read."""

    owner: uuid.UUID
    command: Command  # under a fresh id when the request's id was taken
    context: Context


@dataclass(frozen=True, slots=True)
class Progress:
    """What a command has done so far. Each step returns the next one; `answer` set means the
    command is decided and the remaining steps before `record` are skipped."""

    timings: tuple[tuple[str, int], ...] = ()  # (stage, milliseconds): the event's server_timings
    reserved: bool = False  # its bill was taken up front (billing enforced)
    billed: bool = False  # the provider was called: the command counts against the quota
    answer: CommandResponse | None = None
    transcript: str | None = None
    confident: bool = False  # the transcriber gave a confidence (and it passed)
    raw_plan: Any = None  # the planner's answer, still to be checked
    # A model planned it (a remote provider), not rules reading the transcript: each TAP must
    # be named by the transcript (`plans.naming`) or it is asked.
    planned_remotely: bool = False
    planner: Planner = Planner.NONE  # which planner planned (or is asked to)
    # The rules' answer to `raw_plan`, checked before the record's transaction opens, and the
    # grants it was checked against (`pipeline.validate`; `pipeline.confirm` re-reads them).
    checked: CommandResponse | None = None
    grants_seen: frozenset[str] = frozenset()

    def lap(self, lap: Lap, **changes: Any) -> Progress:
        """This progress with the stage `lap` timed among its timings, and `changes` applied."""
        timing = (lap.stage.value, lap.milliseconds)
        return dataclasses.replace(self, timings=(*self.timings, timing), **changes)

    def decided(self, answer: CommandResponse) -> Progress:
        return dataclasses.replace(self, answer=answer)
