"""The fleet's phones (`bench.fleet`): what each one does, drawn with fixed weights from its own
generator, the routes it calls by the template the service's metrics name them by, and what
the load tool counts of every request."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.speed.service import LAUNCHER, TELEGRAM, VIEW_TREE
from lisan.testing.speech import b64, padded, spoken

WARM_UP_S = 5.0
PAUSE_S = (0.2, 1.0)  # a phone's pause before each action
COMMAND_SECONDS = (3.0, 4.0, 5.0)
MAX_TERMS = 20

OPENAI, OFFLINE = "openai", "offline"  # the servers, by provider

# (method, route template): what the service's metrics name a request by.
Route = tuple[str, str]
REGISTER: Route = ("POST", "/v1/auth/register-device")
REFRESH: Route = ("POST", "/v1/auth/refresh")
GRANT: Route = ("POST", "/v1/app-grants")
COMMAND: Route = ("POST", "/v1/commands")
TELEMETRY: Route = ("POST", "/v1/telemetry/events")
TERM_ADD: Route = ("POST", "/v1/vocabulary")
TERM_DELETE: Route = ("DELETE", "/v1/vocabulary/{termId}")
ENTITLEMENT: Route = ("GET", "/v1/billing/entitlement")
PHRASES: Route = ("GET", "/v1/phrases")
ROUTE_ORDER = [COMMAND, TELEMETRY, ENTITLEMENT, PHRASES, TERM_ADD, TERM_DELETE, REFRESH]
ROUTE_ORDER += [REGISTER, GRANT]

WEIGHTS = {
    "command": 40,
    "entitlement": 15,
    "phrases": 15,
    "vocabulary": 12,
    "refresh": 8,
    "reinstall": 2,
}
OFFLINE_WEIGHT = 3  # "offline command", with --offline

GIVEN_NAMES = ["Abebe", "Kebede", "Almaz", "Tigist", "Dawit", "Hana", "Selam", "Yonas"]
FAMILY_NAMES = ["Tesfaye", "Girma", "Bekele", "Haile", "Mekonnen", "Alemu", "Tadesse", "Wolde"]
# What the phone reports after each answered command.
OUTCOMES = {
    "ACCEPTED": "done",
    "CONFIRMATION_REQUIRED": "done",
    "REPROMPT": "cancelled",
    "REJECTED": "rejected",
}
NO_ANSWER = "no answer"  # a command that got a transport error instead of an HTTP answer


# --- what the load tool counts ---------------------------------------------------------------


@dataclass
class Tally:
    """One route on one server: the answered requests' latencies and statuses, and the
    requests that got no HTTP answer (by exception)."""

    latencies_ms: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    transport: Counter[str] = field(default_factory=Counter)

    @property
    def requests(self) -> int:
        return len(self.latencies_ms) + sum(self.transport.values())


@dataclass
class Recorder:
    routes: dict[tuple[str, Route], Tally] = field(default_factory=dict)
    commands: dict[str, Counter[str]] = field(default_factory=dict)  # server -> status
    last_answer: float = 0.0  # time.monotonic() of the phase's last answer (or error)

    def tally(self, server: str, route: Route) -> Tally:
        return self.routes.setdefault((server, route), Tally())

    def command(self, server: str, status: str) -> None:
        self.commands.setdefault(server, Counter())[status] += 1


# --- the phones ------------------------------------------------------------------------------


def command_bodies() -> list[tuple[float, bytes]]:
    """(seconds, JSON body) of "open telegram" padded to each of COMMAND_SECONDS."""
    speech = spoken("open telegram", "en-US")
    bodies = []
    for seconds in COMMAND_SECONDS:
        body = {
            "audio_base64": b64(padded(speech, seconds)),
            "duration_ms": int(seconds * 1000),
            "language": "en-US",
            "screen_context": {"current_package": LAUNCHER, "view_tree_summary": VIEW_TREE},
        }
        bodies.append((seconds, json.dumps(body).encode()))
    return bodies


class Phone:
    def __init__(
        self,
        number: int,
        seed: int,
        clients: dict[str, httpx.AsyncClient],
        bodies: list[tuple[float, bytes]],
    ) -> None:
        self.number = number
        self.rng = random.Random(f"{seed}:{number}")
        self.clients = clients
        self.bodies = bodies
        self.install_id = ""
        self.token = ""
        self.terms: dict[str, str] = {}  # term id -> term
        weights = dict(WEIGHTS)
        if OFFLINE in clients:
            weights["offline command"] = OFFLINE_WEIGHT
        self.actions, self.weights = list(weights), list(weights.values())

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "X-Install-ID": self.install_id}

    async def request(
        self,
        recorder: Recorder,
        server: str,
        route: Route,
        path: str | None = None,
        **kwargs: Any,
    ) -> httpx.Response | None:
        """Send one request and count it under `route` (its template; `path` when the URL
        differs from it). None when no HTTP answer came."""
        method, template = route
        tally = recorder.tally(server, route)
        started = time.perf_counter()
        try:
            answer = await self.clients[server].request(method, path or template, **kwargs)
        except httpx.HTTPError as exc:
            tally.transport[type(exc).__name__] += 1
            recorder.last_answer = time.monotonic()
            return None
        recorder.last_answer = time.monotonic()
        tally.latencies_ms.append((time.perf_counter() - started) * 1000)
        tally.statuses[answer.status_code] += 1
        return answer

    async def run(self, recorder: Recorder, until: float) -> None:
        while True:
            await asyncio.sleep(self.rng.uniform(*PAUSE_S))
            if time.monotonic() >= until:
                return
            action = self.rng.choices(self.actions, self.weights)[0]
            await self.act(action, recorder)

    async def act(self, action: str, recorder: Recorder) -> None:
        if action == "command":
            await self.command(recorder, OPENAI)
        elif action == "offline command":
            await self.command(recorder, OFFLINE)
        elif action == "entitlement":
            await self.request(recorder, OPENAI, ENTITLEMENT, headers=self.headers)
        elif action == "phrases":
            language = self.rng.choice(["en-US", "am-ET"])
            await self.request(recorder, OPENAI, PHRASES, params={"language": language})
        elif action == "vocabulary":
            await self.edit_vocabulary(recorder)
        elif action == "refresh":
            await self.refresh(recorder)
        elif action == "reinstall":
            await self.register(recorder)
        else:
            raise AssertionError(action)

    async def register(self, recorder: Recorder) -> bool:
        """A new install: register it, then grant Telegram. Whether both succeeded."""
        install_id = f"fleet-{self.number:03d}-{self.rng.getrandbits(64):016x}"
        device = {"install_id": install_id, "model": "Pixel 7a", "locale": "en-US"}
        answer = await self.request(recorder, OPENAI, REGISTER, json=device)
        if answer is None or answer.status_code != 200:
            return False
        self.install_id, self.token = install_id, answer.json()["session_token"]
        self.terms = {}
        grant = {"package_name": TELEGRAM, "granted": True}
        granted = await self.request(recorder, OPENAI, GRANT, json=grant, headers=self.headers)
        return granted is not None and granted.status_code == 200

    async def refresh(self, recorder: Recorder) -> None:
        answer = await self.request(recorder, OPENAI, REFRESH, headers=self.headers)
        if answer is not None and answer.status_code == 200:
            self.token = answer.json()["session_token"]

    async def edit_vocabulary(self, recorder: Recorder) -> None:
        if self.terms and (len(self.terms) >= MAX_TERMS or self.rng.random() < 0.4):
            term_id = self.rng.choice(sorted(self.terms))
            del self.terms[term_id]
            path = f"/v1/vocabulary/{term_id}"
            await self.request(recorder, OPENAI, TERM_DELETE, path, headers=self.headers)
            return
        held = {term.casefold() for term in self.terms.values()}
        names = [f"{given} {family}" for given in GIVEN_NAMES for family in FAMILY_NAMES]
        term = self.rng.choice([name for name in names if name.casefold() not in held])
        body = {"term": term, "kind": self.rng.choice(["contact", "contact", "custom"])}
        answer = await self.request(recorder, OPENAI, TERM_ADD, json=body, headers=self.headers)
        if answer is not None and answer.status_code == 201:
            self.terms[answer.json()["term_id"]] = term

    async def command(self, recorder: Recorder, server: str) -> str:
        """One spoken command, then (answered) the phone's telemetry event; its status."""
        seconds, body = self.rng.choice(self.bodies)
        key = uuid.UUID(int=self.rng.getrandbits(128), version=4)
        headers = {
            **self.headers,
            "X-Idempotency-Key": str(key),
            "Content-Type": "application/json",
        }
        started = time.perf_counter()
        answer = await self.request(recorder, server, COMMAND, content=body, headers=headers)
        waited_ms = int((time.perf_counter() - started) * 1000)
        if answer is None:
            recorder.command(server, NO_ANSWER)
            return NO_ANSWER
        if answer.status_code != 200:
            recorder.command(server, "ERROR")
            return "ERROR"
        answered = answer.json()
        status = str(answered["status"])
        recorder.command(server, status)
        executed_ms = self.rng.randint(150, 900)
        event = {
            "request_id": answered["command_id"],
            "outcome": OUTCOMES.get(status, "failed"),
            "duration_ms": waited_ms + executed_ms,
            "confidence": round(self.rng.uniform(0.6, 0.99), 2),
            "stage_timings": {
                "record": int(seconds * 1000),
                "server": waited_ms,
                "execute": executed_ms,
            },
        }
        await self.request(recorder, server, TELEMETRY, json=event, headers=self.headers)
        return status
