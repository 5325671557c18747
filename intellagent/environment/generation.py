"""How a column's values are generated, when a domain author wants to say so instead of leaving it learnt.

Populate learns each column's shape from its type and from the background world's rows (choices,
date formats, ranges, id patterns). Where that is not enough, a schema says more in the field's
metadata:

    starts_at: str = Field(schema_extra=generation(date_format="%Y-%m-%dT%H:%M"))
    price: int = Field(schema_extra=generation(inherit=True))   # the referenced product's price
    email: str = Field(schema_extra=generation(faker="email"))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic.fields import FieldInfo

from intellagent.errors import UsageError

_KEY = "intellagent_generation"


@dataclass(frozen=True)
class Generation:
    """A domain's instructions for generating one column (see `generation`)."""

    choices: tuple[Any, ...] = ()
    date_format: str | None = None
    faker: str | None = None
    inherit: bool = False


def generation(
    *,
    choices: Sequence[Any] = (),
    date_format: str | None = None,
    faker: str | None = None,
    inherit: bool = False,
) -> dict[str, Any]:
    """The `schema_extra` of a SQLModel `Field` that tells populate how to generate the column.

    Args:
        choices: the values the column may take; a generated value is one of them.
        date_format: the strftime format of a date or time written as text, e.g. '%Y-%m-%dT%H:%M'.
        faker: the name of a Faker provider that makes the value, e.g. 'email' or 'license_plate'.
        inherit: take the value of the same-named column of a row this row refers to (an order line's
            price is its product's). Without it, a same-named column is never copied, since a
            name alone does not say the two mean the same thing.
    """
    if faker is not None and not faker.isidentifier():
        raise UsageError(f"generation(faker={faker!r}): name a Faker provider, e.g. 'email'")
    return {"json_schema_extra": {_KEY: {"choices": list(choices), "date_format": date_format, "faker": faker,
                                         "inherit": inherit}}}


def generation_of(field: FieldInfo) -> Generation:
    """The instructions a field carries, or none."""
    extra = field.json_schema_extra
    given = extra.get(_KEY) if isinstance(extra, dict) else None
    if not isinstance(given, dict):
        return Generation()
    return Generation(choices=tuple(given.get("choices") or ()), date_format=given.get("date_format"),
                      faker=given.get("faker"), inherit=bool(given.get("inherit")))
