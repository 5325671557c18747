"""Assertions compiled from policies: a small typed language of what a program can decide over a dialog.

Each policy compiles into zero or more assertions (in policies.json, `assertions`), each one of five kinds:

- `order`: a call of one tool comes before any call of another, optionally on the same entity (an
  argument of the first equals an argument of the second);
- `precondition`: a tool is called only when a column of the rows its argument names holds a value (any
  of a few alternatives);
- `bound`: a count or an amount, over a tool's argument or the rows it leaves, stays within a limit;
- `forbidden`: a tool is never called (or never with an argument equal to a value);
- `confirmation`: a tool is called only right after the chatbot stated the action and the user said an
  explicit yes.

Every name in an assertion is a tool, an argument, a table or a column of the domain: the answer that
proposes them is constrained to those names, and each assertion is checked against the domain's types
when compiled. An assertion that the verified expected outcome of an event breaks is discarded with the
reason (assertions.json, written by populate): the outcome is right by construction, the assertion is
not. The assertions in force run after every dialog as checks named `compiled <id>`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

Scalar = str | int | float | bool
Operator = Literal["in", "not_in", "eq", "ne", "lt", "le", "gt", "ge", "within_days"]
Comparison = Literal["eq", "ne", "lt", "le", "gt", "ge"]

COMPILED = "compiled "
"""How the check of an assertion is named: `compiled P07.2`."""


class Compiled(BaseModel):
    """What every assertion carries."""

    id: str = Field(description="The policy's id, a dot and a number: P07.1, P07.2, ...")
    policy: str = Field(description="The policy it was compiled from.")
    rationale: str = Field(description="The words of the policy it encodes.")

    @property
    def check(self) -> str:
        """The name of its check, which findings and reports cite."""
        return COMPILED + self.id


class SameEntity(BaseModel):
    """Two calls are about one entity: an argument of the first equals an argument of the second."""

    before: str = Field(description="The argument of the earlier call.")
    then: str = Field(description="The argument of the later call.")


class OrderAssertion(Compiled):
    """A successful call of `before` comes before any call of `then` (on the same entity, if `same` is set)."""

    kind: Literal["order"] = "order"
    before: str = Field(description="The tool called first.")
    then: str = Field(description="The tool that may be called only after it.")
    same: SameEntity | None = None

    def text(self) -> str:
        """The assertion in one line."""
        same = "" if self.same is None else f" (same {self.same.before} as {self.then}.{self.same.then})"
        return f"a successful {self.before} before any {self.then}{same}"


class Condition(BaseModel):
    """A column of the rows an argument names holds a value: rows of `table` whose `key` equals the argument."""

    argument: str = Field(description="The tool's argument that names the rows.")
    table: str
    key: str = Field(description="The column of the table equal to the argument.")
    column: str = Field(description="The column tested.")
    op: Operator
    value: Scalar | list[Scalar] = Field(description="A list for in/not_in; the number of days for within_days.")
    since: str | None = Field(default=None, description="within_days: the moment counted from (the policy's now).")
    since_column: str | None = Field(default=None, description="within_days: or the column of the same row.")

    def text(self) -> str:
        """The condition in one line: `reservations.cabin ne 'basic_economy'`."""
        since = f" of {self.since_column or repr(self.since)}" if self.op == "within_days" else ""
        return f"{self.table}.{self.column} {self.op} {self.value!r}{since} (the row whose {self.key} is " \
               f"{self.argument})"


class PreconditionAssertion(Compiled):
    """A call of `tool` only when one of the conditions holds, in the world the chatbot found (or left)."""

    kind: Literal["precondition"] = "precondition"
    tool: str
    any_of: list[Condition] = Field(min_length=1)

    def text(self) -> str:
        """The assertion in one line."""
        return f"{self.tool} only when {self.wanted()}"

    def wanted(self) -> str:
        """What it wants of the world, in one line."""
        said = [condition.text() for condition in self.any_of]
        return said[0] if len(said) == 1 else "one of: " + "; ".join(said)


class BoundAssertion(Compiled):
    """A measure of a call stays within a limit: a list argument's length, a number argument's value, or the
    rows of a table that name the argument's entity once the dialog ended."""

    kind: Literal["bound"] = "bound"
    tool: str
    measure: Literal["length", "value", "rows"]
    argument: str
    table: str | None = Field(default=None, description="rows: the table counted.")
    key: str | None = Field(default=None, description="rows: the column of its rows that equals the argument.")
    op: Comparison
    value: float

    def text(self) -> str:
        """The assertion in one line."""
        measured = {"length": f"the length of {self.argument}", "value": self.argument,
                    "rows": f"the {self.table} rows whose {self.key} is {self.argument}, once the dialog ended"}
        return f"{self.tool}: {measured[self.measure]} {self.op} {self.value:g}"


class ForbiddenAssertion(Compiled):
    """`tool` is never called (or never with `argument` equal to `value`)."""

    kind: Literal["forbidden"] = "forbidden"
    tool: str
    argument: str | None = None
    value: Scalar | None = None

    def text(self) -> str:
        """The assertion in one line."""
        return f"never {self.tool}" + ("" if self.argument is None else f" with {self.argument} = {self.value!r}")


class ConfirmationAssertion(Compiled):
    """`tool` is called only right after the chatbot stated the action and the user said an explicit yes."""

    kind: Literal["confirmation"] = "confirmation"
    tool: str

    def text(self) -> str:
        """The assertion in one line."""
        return f"{self.tool} only right after the chatbot stated it and the user said an explicit yes"


Assertion = Annotated[
    OrderAssertion | PreconditionAssertion | BoundAssertion | ForbiddenAssertion | ConfirmationAssertion,
    Field(discriminator="kind"),
]


class DiscardedAssertion(BaseModel):
    """An assertion that the verified expected outcome of an event breaks."""

    id: str
    policy: str
    event: str = Field(description="The event whose outcome breaks it.")
    reason: str = Field(description="What the assertion found wrong in that outcome.")


class AssertionsInForce(BaseModel):
    """assertions.json: which compiled assertions run after the dialogs, and which were discarded and why."""

    in_force: list[str] = Field(default_factory=list, description="The ids of the assertions that run.")
    discarded: list[DiscardedAssertion] = Field(default_factory=list)
    outcomes: int = Field(default=0, description="Verified expected outcomes the assertions were read against.")
