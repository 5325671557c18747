"""The answer that compiles a batch of policies into assertions: its schema, every name an enum of the domain's.

The schema is built once per batch from the run's vocabulary: tools, `tool.argument` and `table.column`
names, and the batch's policy ids, each an enum listed once in the schema's `$defs`. An argument named
for another tool than the call's, or a column of another table than its key's, fits the schema and is
refused when the answer is compiled (`describe.assertion_compiler`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from intellagent.artifacts.assertions import Comparison, Operator
from intellagent.describe.vocabulary import Vocabulary, enum

MAX_PER_POLICY = 3
"""Assertions a policy may compile into: a rule a program can decide says one or two things."""
RATIONALE = 300
DATE = r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?$"

Value = str | float | bool | list[str | float] | None


def assertions_schema(vocabulary: Vocabulary, policies: list[str]) -> type[BaseModel]:
    """The answer for the batch `policies`: a list of assertions, each of one kind, every name an enum."""
    tool = enum("Tool", list(vocabulary.tools))
    argument = enum("Argument", vocabulary.arguments) if vocabulary.arguments else None
    column = enum("Column", vocabulary.columns) if vocabulary.columns else None
    common: dict[str, Any] = {
        "policy": (enum("PolicyId", policies), ...),
        "rationale": (str, Field(min_length=10, max_length=RATIONALE,
                                 description="The words of the policy this encodes, quoted.")),
    }
    kinds = [
        _kind("order", common, before=(tool, ...), then=(tool, ...),
              **({"before_argument": (argument | None, None), "then_argument": (argument | None, None)}
                 if argument else {})),
        _kind("forbidden", common, tool=(tool, ...),
              **({"argument": (argument | None, None), "value": (str | float | bool | None, None)}
                 if argument else {})),
        _kind("confirmation", common, tool=(tool, ...)),
    ]
    if argument is not None:
        kinds.append(_kind("bound", common, tool=(tool, ...), measure=(Literal["length", "value", "rows"], ...),
                           argument=(argument, ...), counted=(column | None if column else None, None),
                           op=(Comparison, ...), value=(float, ...)))
    if argument is not None and column is not None:
        condition = create_model(
            "ConditionAnswer", __config__=ConfigDict(extra="forbid"), argument=(argument, ...), key=(column, ...),
            column=(column, ...), op=(Operator, ...), value=(Value, ...),
            since=(Annotated[str, Field(pattern=DATE)] | None, None), since_column=(column | None, None),
        )
        kinds.append(_kind("precondition", common, tool=(tool, ...),
                           any_of=(list[condition], Field(min_length=1, max_length=3))))  # type: ignore[valid-type]
    union = Annotated[Union[tuple(kinds)], Field(discriminator="kind")]  # type: ignore[valid-type]  # noqa: UP007
    limit = MAX_PER_POLICY * len(policies)
    return create_model("AssertionsAnswer", __config__=ConfigDict(extra="forbid"),
                        assertions=(list[union], Field(max_length=limit)))  # type: ignore[valid-type]


def _kind(kind: str, common: dict[str, Any], **fields: Any) -> type[BaseModel]:
    return create_model(f"{kind.capitalize()}Answer", __config__=ConfigDict(extra="forbid"),
                        kind=(Literal[kind], ...), **common, **fields)  # type: ignore[call-overload]
