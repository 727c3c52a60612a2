"""Base classes for request and response bodies, and strict JSON body parsing."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, model_validator
from pydantic_core import ErrorDetails

from lisan.core.errors import BadRequest


def _integral_numbers_as_ints(value: Any) -> Any:
    """JSON has one kind of number, and JSON Schema calls any number with a zero fraction an
    integer: `1.0` and `1e3` are integers, `1.5` and `"1"` are not."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {key: _integral_numbers_as_ints(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral_numbers_as_ints(item) for item in value]
    return value


class _RequestBody(BaseModel):
    """What every request body shares: strict JSON Schema types, no coercion, frozen."""

    model_config = ConfigDict(strict=True, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _json_schema_integers(cls, data: Any) -> Any:
        # Strict validation refuses a float where an int is due; JSON Schema does not (a float
        # field still takes an int).
        return _integral_numbers_as_ints(data)


class StrictModel(_RequestBody):
    """A body the contract marks "no extra properties": an unknown field is a 400."""

    model_config = ConfigDict(extra="forbid")


class TolerantModel(_RequestBody):
    """A body the phone extends over time: an unknown field (at any depth) is ignored, so an
    older service accepts a newer phone during a staged roll-out. Known fields stay strict."""

    model_config = ConfigDict(extra="ignore")


class ResponseModel(BaseModel):
    """A response body. Optional fields that do not apply are left out when `omit_none` is set;
    fields the contract types as "or null" live on models that keep `omit_none` False."""

    model_config = ConfigDict(frozen=True)
    omit_none: ClassVar[bool] = False

    def to_json(self) -> bytes:
        return self.model_dump_json(exclude_none=self.omit_none, by_alias=True).encode()


ModelT = TypeVar("ModelT", bound=BaseModel)


def describe_validation_error(errors: list[ErrorDetails] | list[dict[str, Any]]) -> str:
    """A safe one-line message: where the first problem is and what it is (never the input)."""
    if not errors:
        return "invalid request"
    first = errors[0]
    location = ".".join(str(part) for part in first.get("loc", ()) if part != "__root__")
    message = str(first.get("msg", "is invalid")).removeprefix("Value error, ")
    return f"{location}: {message}" if location else message


def parse_json_body(raw: bytes, model: type[ModelT]) -> ModelT:
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        if errors and errors[0]["type"] == "json_invalid":
            raise BadRequest("body is not valid JSON") from None
        raise BadRequest(describe_validation_error(errors)) from None


def _reject_null(value: object) -> object:
    if value is None:
        raise ValueError("must not be null")
    return value


# For optional request fields: may be left out, but an explicit `null` is not of the field's type.
NotNull = BeforeValidator(_reject_null)
