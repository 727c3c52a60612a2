"""Contract fuzzing: schemathesis generates requests from openapi.yaml and holds every answer of
the app (in-process, over ASGI, its lifespan run by schemathesis) to the contract.

Every check is on: server errors, response schema, response headers, status codes, content
types, negative data rejected, positive data accepted, missing required headers, ignored auth,
unsupported methods and their `Allow`, and the stateful ones on the sequences the links of the
schema allow. A deliberate deviation from the contract is written into openapi.yaml and the
README, never into this file: nothing here skips a check or an operation.

`make test` runs a bounded, reproducible fuzz: LISAN_FUZZ_EXAMPLES (40) examples per operation,
derandomized. `make fuzz` runs a long one. LISAN_FUZZ_SEED=N explores other inputs (seeded, and
random in the stateful part).
"""

from __future__ import annotations

import base64
import os
import re
import secrets
import uuid
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import hypothesis
import pytest
import schemathesis
from hypothesis import HealthCheck
from schemathesis import AuthContext, Case

from lisan.admin import service as admin_service
from lisan.admin.models import Permission
from lisan.app import LisanApp, create_app
from lisan.core.settings import Settings
from lisan.db.database import create_engine
from lisan.db.store import unit_of_work
from tests.fixtures.contract import CONTRACT_PATH, contract

FUZZ_EXAMPLES = int(os.environ.get("LISAN_FUZZ_EXAMPLES", "40"))
FUZZ_SEED = os.environ.get("LISAN_FUZZ_SEED")
UNLIMITED = "1000000/minute"  # the fuzz sends thousands of requests from one address

INSTALL_ID = re.compile(contract()["components"]["schemas"]["InstallId"]["pattern"])
BYTES_PER_MS = 32  # 16 kHz mono 16-bit PCM
# Operations that end the session they are called with: each call gets a device of its own, so
# the rest of the run keeps a working session.
SESSION_ENDING = frozenset(
    {"POST /v1/auth/refresh", "POST /v1/auth/logout", "DELETE /v1/consent/user-data"}
)
AnyCase = Case[Any]


def _config() -> schemathesis.Config:
    generation: dict[str, Any] = {"max-examples": FUZZ_EXAMPLES, "database": "none"}
    settings: dict[str, Any] = {"generation": generation}
    if FUZZ_SEED is None:
        generation["deterministic"] = True  # derandomized: the same requests on every run
    else:
        settings["seed"] = int(FUZZ_SEED)
    return schemathesis.Config.from_dict(
        {**settings, "checks": {"enabled": True}, "phases": {"enabled": True}}
    )


@dataclass(frozen=True)
class Role:
    """Who a request acts as. Generation only names the role (schemathesis builds some cases
    before any app runs); `prepare` swaps in the live credentials of the test's run."""

    token: str
    install_id: str | None  # None: an admin credential, no install id

    @property
    def authorization(self) -> str:
        return f"Bearer {self.token}"


DEVICE = Role("lsn_s_fuzz-device", "fuzz-role-device-0")
FRESH_DEVICE = Role("lsn_s_fuzz-fresh-device", "fuzz-role-fresh-device-0")
ADMIN = Role("lsn_a_fuzz-admin", None)
ROLES = {role.authorization: role for role in (DEVICE, FRESH_DEVICE, ADMIN)}


def _security_of(method: str, path: str) -> set[str]:
    operation = contract()["paths"][path][method.lower()]
    return {name for requirement in operation.get("security", []) for name in requirement}


@dataclass
class FuzzRun:
    """The app under test and the live credentials its requests carry."""

    app: LisanApp
    admin_token: str
    device: Role | None = None
    victim_user_id: str | None = None  # a user the admin routes may suspend and reinstate
    task_id: str | None = None  # a deletion job to look up

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        """A request of set-up, through schemathesis' own transport (the app's event loop)."""
        return schema[path][method].Case(**kwargs).call()

    def register(self) -> tuple[Role, str]:
        install_id = "fuzz-" + secrets.token_hex(12)
        response = self.call("POST", "/v1/auth/register-device", body={"install_id": install_id})
        assert response.status_code == 200, response.text
        device = Role(response.json()["session_token"], install_id)
        me = self.call("GET", "/v1/users/me", headers=_headers(device))
        assert me.status_code == 200, me.text
        return device, me.json()["user_id"]

    def live(self, role: Role) -> Role:
        if role is ADMIN:
            return Role(self.admin_token, None)
        if role is FRESH_DEVICE:
            return self.register()[0]
        assert self.device is not None
        return self.device


def _headers(role: Role) -> dict[str, str]:
    headers = {"Authorization": role.authorization}
    if role.install_id is not None:
        headers["X-Install-ID"] = role.install_id
    return headers


_runs: list[FuzzRun] = []  # the run of the test in progress


async def _current_app(scope: Any, receive: Any, send: Any) -> None:
    """The schema's application: the app of the test in progress."""
    await _runs[-1].app(scope, receive, send)


schema = schemathesis.openapi.from_path(CONTRACT_PATH, config=_config())
schema.app = _current_app  # in-process over ASGI, as `schemathesis.openapi.from_asgi` sets it


@schema.auth(refresh_interval=None)
class LisanAuth:
    """A registered device's session and install id on user routes (a device of its own for a
    call that ends its session), the admin credential on admin routes."""

    def get(self, case: AnyCase, context: AuthContext) -> Role | None:
        security = _security_of(context.operation.method, context.operation.path)
        if "admin" in security:
            return ADMIN
        if security != {"session"}:
            return None  # no credential, or an optional one (register-device: a new install)
        return FRESH_DEVICE if context.operation.label in SESSION_ENDING else DEVICE

    def set(self, case: AnyCase, data: Role, context: AuthContext) -> None:
        case.headers["Authorization"] = data.authorization
        generated = case.headers.get("X-Install-ID")
        # A valid install id becomes the role's; a missing or invalid one stays, so the negative
        # cases still reach the app with it.
        valid = isinstance(generated, str) and INSTALL_ID.fullmatch(generated)
        if data.install_id is not None and valid:
            case.headers["X-Install-ID"] = data.install_id


def _picks(value: object) -> bool:
    """A deterministic coin (the same case always gets the same answer)."""
    return zlib.crc32(repr(value).encode()) % 2 == 0


def prepare(case: AnyCase, run: FuzzRun, *, real_ids: bool = True) -> None:
    """Right before a call: the role's live credentials, and what the contract asks of a valid
    request beyond what JSON Schema can say. With `real_ids`, half the valid cases name the
    run's user or deletion job (random ids would only ever meet 404)."""
    role = ROLES.get(str(case.headers.get("Authorization")))
    if role is not None:
        live = run.live(role)
        case.headers["Authorization"] = live.authorization
        if role.install_id is not None and case.headers.get("X-Install-ID") == role.install_id:
            case.headers["X-Install-ID"] = live.install_id
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return
    label = case.operation.label
    if label == "POST /v1/commands" and isinstance(case.body, dict):
        # The recording must be 0.4 to 15 s of 16-bit PCM as long as `duration_ms`: that much
        # silence (REPROMPT `no_speech`, no decode), under an idempotency key of its own.
        duration = case.body.get("duration_ms")
        if isinstance(duration, int | float):  # 2739.0 is an integer too
            pcm = b"\0" * (int(duration) * BYTES_PER_MS)
            case.body["audio_base64"] = base64.b64encode(pcm).decode()
        case.headers["X-Idempotency-Key"] = str(uuid.uuid4())
    elif not real_ids:
        return
    elif "userId" in case.path_parameters and _picks(case.path_parameters["userId"]):
        case.path_parameters["userId"] = run.victim_user_id
    elif "taskId" in case.path_parameters and _picks(case.path_parameters["taskId"]):
        case.path_parameters["taskId"] = run.task_id


@pytest.fixture
async def admin_token(database_url: str) -> str:
    """An admin credential with both permissions, made as `lisan admin create-token` makes one."""
    engine = create_engine(database_url)
    try:
        async with unit_of_work(engine) as db:
            token = await admin_service.create_credential(
                db,
                f"fuzz-{secrets.token_hex(4)}",
                [Permission.USERS_READ, Permission.USERS_SUSPEND],
            )
    finally:
        await engine.dispose()
    return token


@pytest.fixture
def fuzz_run(settings_factory: Callable[..., Settings], admin_token: str) -> Iterator[FuzzRun]:
    """A fresh app (rate limits out of the way) with a registered device, a user for the admin
    routes and a deletion job."""
    settings = settings_factory(
        rate_limit_register=UNLIMITED,
        rate_limit_job_lookup=UNLIMITED,
        rate_limit_commands=UNLIMITED,
        rate_limit_user=UNLIMITED,
        rate_limit_ip=UNLIMITED,
    )
    run = FuzzRun(create_app(settings), admin_token)
    _runs.append(run)
    try:
        run.device, _ = run.register()
        _, run.victim_user_id = run.register()
        gone, _ = run.register()
        deleted = run.call("DELETE", "/v1/consent/user-data", headers=_headers(gone))
        assert deleted.status_code == 202, deleted.text
        run.task_id = deleted.json()["task_id"]
        yield run
    finally:
        _runs.remove(run)


@schema.parametrize()
# One app per operation, shared by its examples on purpose (each example is a request to it).
@hypothesis.settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_every_operation_keeps_to_the_contract(case: AnyCase, fuzz_run: FuzzRun) -> None:
    prepare(case, fuzz_run)
    case.call_and_validate()


def test_sequences_of_operations_keep_to_the_contract(fuzz_run: FuzzRun) -> None:
    """Stateful: chains along the links schemathesis infers (a term created, then changed and
    deleted; a user read, then suspended and reinstated)."""

    class Sequences(schema.as_state_machine()):  # type: ignore[misc]
        def setup(self) -> None:
            # A device of its own per scenario: a scenario starts from the same (empty) state
            # whenever it is replayed, as Hypothesis needs.
            fuzz_run.device, _ = fuzz_run.register()

        def before_call(self, case: AnyCase) -> None:
            # The links supply real ids; a swapped one would make a replay differ.
            prepare(case, fuzz_run, real_ids=False)

    Sequences.run(
        settings=hypothesis.settings(
            max_examples=FUZZ_EXAMPLES,
            stateful_step_count=10,
            derandomize=FUZZ_SEED is None,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
    )
