"""The installed uvicorn has every private member `lisan serve`'s protocol overrides or uses.

`lisan.server.protocol` and `lisan.server.request_head` override uvicorn's httptools protocol; an
uvicorn whose protocol lacks one of those members (0.30.0 to 0.30.5 lack
`_unsupported_upgrade_warning`) fails here, not on a connection. The list is the code's own:
`lisan.server.protocol.UVICORN_MEMBERS`.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator

import pytest
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.server import ServerState

from lisan.server.protocol import UVICORN_MEMBERS, BoundedHttpToolsProtocol


def _parameters(function: object) -> tuple[str, ...]:
    return tuple(inspect.signature(function).parameters)[1:]  # type: ignore[arg-type]


def _overridden() -> Iterator[str]:
    """Every method of uvicorn's protocol a class of ours between it and ours redefines."""
    for cls in BoundedHttpToolsProtocol.__mro__[
        : BoundedHttpToolsProtocol.__mro__.index(HttpToolsProtocol)
    ]:
        for name, member in vars(cls).items():
            if callable(member) and hasattr(HttpToolsProtocol, name):
                yield name


@pytest.mark.parametrize("name", sorted(UVICORN_MEMBERS.protocol_methods))
def test_every_method_relied_on_exists_with_its_parameters(name: str) -> None:
    method = getattr(HttpToolsProtocol, name, None)
    assert callable(method), f"uvicorn's HttpToolsProtocol has no {name}()"
    assert _parameters(method) == UVICORN_MEMBERS.protocol_methods[name], name


def test_every_override_is_listed_with_uvicorns_own_parameters() -> None:
    overridden = set(_overridden())
    assert overridden, "the protocol overrides nothing?"
    assert overridden <= set(UVICORN_MEMBERS.protocol_methods), sorted(
        overridden - set(UVICORN_MEMBERS.protocol_methods)
    )
    for name in overridden:
        ours = getattr(BoundedHttpToolsProtocol, name)
        assert _parameters(ours) == _parameters(getattr(HttpToolsProtocol, name)), name


def _empty_app() -> None:
    """Never called: the protocol is made, not run."""


def test_every_attribute_relied_on_exists() -> None:
    loop = asyncio.new_event_loop()
    try:
        config = Config(app=_empty_app, http="httptools", log_config=None, lifespan="off")
        protocol = HttpToolsProtocol(config, ServerState(), {}, _loop=loop)
    finally:
        loop.close()
    missing = {name for name in UVICORN_MEMBERS.protocol_attributes if not hasattr(protocol, name)}
    assert not missing, f"uvicorn's HttpToolsProtocol has no {sorted(missing)}"
    assert isinstance(protocol.timeout_keep_alive, int | float)


def test_every_attribute_of_a_request_cycle_relied_on_exists() -> None:
    # Made with whatever its constructor takes: only the attributes it sets are looked at.
    parameters = inspect.signature(RequestResponseCycle).parameters
    cycle = RequestResponseCycle(**dict.fromkeys(parameters))  # type: ignore[arg-type]
    missing = {name for name in UVICORN_MEMBERS.cycle_attributes if not hasattr(cycle, name)}
    assert not missing, f"uvicorn's RequestResponseCycle has no {sorted(missing)}"


def test_a_missing_member_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above fails when uvicorn drops a member this protocol relies on."""
    monkeypatch.delattr(HttpToolsProtocol, "_unsupported_upgrade_warning", raising=False)
    with pytest.raises(AssertionError, match="_unsupported_upgrade_warning"):
        test_every_method_relied_on_exists_with_its_parameters("_unsupported_upgrade_warning")
