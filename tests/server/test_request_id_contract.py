"""The contract's `X-Request-ID` request header takes what the edge takes: any value, a UUID
echoed, anything else replaced (found by the contract fuzz: the contract said UUID only)."""

from __future__ import annotations

import uuid

import httpx

from tests.fixtures.contract import assert_matches_contract, contract, schema_validator


def test_the_contract_takes_a_request_id_that_is_no_uuid() -> None:
    parameter = contract()["components"]["parameters"]["RequestId"]
    assert schema_validator(parameter["schema"]).is_valid("not-a-uuid")


async def test_a_request_id_that_is_no_uuid_is_replaced_not_refused(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/v1/phrases", headers={"X-Request-ID": "not-a-uuid"})
    assert_matches_contract(response)
    assert response.status_code == 200
    assert uuid.UUID(response.headers["x-request-id"])
