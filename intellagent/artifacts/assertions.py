"""The rule language: what a program can decide over a dialog, as typed data.

A rule is one of these kinds (each a *body*; `artifacts.rules` gives a rules file's header of citation,
scope and examples, and `Compiled` the header of an assertion compiled in a run):

- `order`: a successful call of one tool comes before any call of another, optionally on the same entity;
- `precondition`: a tool is called only when one of its conditions holds: a column of the rows an argument
  names holds a value (`Condition`), two values compare so (`Comparison`: an argument, a constant, a column
  of the rows reached through arguments or earlier results, joined along keys and into JSON columns; with
  `different`, `subset`, a sum or a count for relations between arguments), or an earlier successful call
  was made, with matching values (`EarlierCall`);
- `bound`: a count or an amount, over a tool's argument or the rows it leaves, stays within a limit;
- `forbidden`: a tool is never called (or never with an argument equal to a value, or never in a state
  its `when` conditions describe);
- `confirmation`: a tool is called only right after the user's affirmative answer to a chatbot turn that
  named the action (its words) with its key arguments;
- `disclosure`: the chatbot names fields of a row only after a call that entitles it (one of a few, tied
  to the row by what it returned).

A procedure (a flow's steps, some `required`) is a kind of rule too (`artifacts.rules`). Every name is a
tool, an argument, a table or a column of the domain, checked against its types before a rule is used.
The compiled assertions of a run are the first five kinds; each runs after every dialog as the check
`compiled <id>`, a rules file's rules as `rule <id>`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

Scalar = str | int | float | bool
Operator = Literal["in", "not_in", "eq", "ne", "lt", "le", "gt", "ge", "within_days"]
Comparison = Literal["eq", "ne", "lt", "le", "gt", "ge"]
Relation = Literal["eq", "ne", "lt", "le", "gt", "ge", "in", "not_in", "subset", "different"]
"""How two terms compare: eq (the same values), ne (none in common), an order between each pair, in/subset (every
left value among the right's), not_in (none of them), different (pair by pair, for two lists of one length)."""

COMPILED = "compiled "
"""How the check of an assertion is named: `compiled P07.2`."""


class Compiled(BaseModel):
    """What every assertion compiled in a run carries."""

    id: str = Field(description="The policy's id, a dot and a number: P07.1, P07.2, ...")
    policy: str = Field(description="The policy it was compiled from.")
    rationale: str = Field(description="The words of the policy it encodes.")

    @property
    def check(self) -> str:
        """The name of its check, which findings and reports cite."""
        return COMPILED + self.id


def _term(value: Any) -> Any:
    # A bare name is the subject's own value: a call's argument (or, in a disclosure, the row's column).
    return {"arg": value} if isinstance(value, str) else value


class Term(BaseModel):
    """A value a rule compares, exactly one of:

    - `arg`: the call's argument (a dotted path goes into it: `passengers.first_name`);
    - `value`: a constant;
    - `rows` (a table), `where` (column → term, each a join) and `column` (dotted into a JSON column:
      `options.color`): that column of the rows whose columns equal the terms;
    - `result`: what the last successful earlier call of a tool returned, as `tool.path` (`find_customer.customer_id`).

    A term stands for every value it reaches (rows are many, a JSON list is each of its items); `measure`
    makes them one: their `sum`, or their `count`.
    """

    model_config = ConfigDict(extra="forbid")

    arg: str | None = None
    value: Scalar | list[Scalar] | None = None
    rows: str | None = None
    where: dict[str, Annotated[Term, BeforeValidator(_term)]] = Field(default_factory=dict)
    column: str | None = None
    result: str | None = None
    measure: Literal["sum", "count"] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> Term:
        given = [name for name in ("arg", "value", "rows", "result") if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"a term is one of arg, value, rows or result, not {', '.join(given) or 'none'}")
        if self.rows is None and (self.where or self.column):
            raise ValueError("where and column go with rows")
        if self.rows is not None and not self.column:
            raise ValueError(f"rows of {self.rows}: name the column read")
        return self

    def text(self) -> str:
        """The term in a few words: `store_payments.method_id where order_id = order_id`."""
        if self.arg is not None:
            said = self.arg
        elif self.rows is not None:
            joined = " and ".join(f"{column} = {term.text()}" for column, term in self.where.items())
            said = f"{self.rows}.{self.column}" + (f" where {joined}" if joined else "")
        elif self.result is not None:
            said = f"the result of {self.result}"
        else:
            said = repr(self.value)
        return f"the {self.measure} of {said}" if self.measure else said


TermOrName = Annotated[Term, BeforeValidator(_term)]


class SameEntity(BaseModel):
    """Two calls are about one entity: an argument of the first equals an argument of the second."""

    before: str = Field(description="The argument of the earlier call.")
    then: str = Field(description="The argument of the later call.")


class Order(BaseModel):
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


class Compare(BaseModel):
    """Two terms compare so: `left op right` (see `Relation`)."""

    model_config = ConfigDict(extra="forbid")

    left: TermOrName
    op: Relation
    right: TermOrName

    def text(self) -> str:
        """The comparison in one line."""
        return f"{self.left.text()} {self.op} {self.right.text()}"


class EarlierCall(BaseModel):
    """A successful earlier call of `call` whose values match: each key of `same` is an argument of that call, or
    `result.<path>` into what it returned, and each value a term of the subject (a bare name: the call's argument,
    or in a disclosure the row's column)."""

    model_config = ConfigDict(extra="forbid")

    call: str = Field(description="The tool called earlier, successfully.")
    same: dict[str, TermOrName] = Field(default_factory=dict)

    def text(self) -> str:
        """The earlier call in one line."""
        matched = ", ".join(f"{earlier} = {term.text()}" for earlier, term in self.same.items())
        return f"an earlier {self.call}" + (f" with {matched}" if matched else "")


AnyCondition = Compare | EarlierCall | Condition
"""A condition of a precondition or of a forbidden state: told apart by their fields."""


class Precondition(BaseModel):
    """A call of `tool` only when one of the conditions holds, in the world the chatbot found (or left)."""

    kind: Literal["precondition"] = "precondition"
    tool: str
    any_of: list[AnyCondition] = Field(min_length=1)

    def text(self) -> str:
        """The assertion in one line."""
        return f"{self.tool} only when {self.wanted()}"

    def wanted(self) -> str:
        """What it wants of the world, in one line."""
        said = [condition.text() for condition in self.any_of]
        return said[0] if len(said) == 1 else "one of: " + "; ".join(said)


class Bound(BaseModel):
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


class Forbidden(BaseModel):
    """`tool` is never called (or never with `argument` equal to `value`, or never while every `when` holds)."""

    kind: Literal["forbidden"] = "forbidden"
    tool: str
    argument: str | None = None
    value: Scalar | None = None
    when: list[AnyCondition] = Field(default_factory=list, description="The state it is forbidden in: all hold.")

    def text(self) -> str:
        """The assertion in one line."""
        state = "" if not self.when else " when " + " and ".join(condition.text() for condition in self.when)
        return f"never {self.tool}" + ("" if self.argument is None else
                                       f" with {self.argument} = {self.value!r}") + state


class Confirmation(BaseModel):
    """`tool` is called only right after the user's affirmative answer to a chatbot turn that named the action:
    one of `words` (if any) and the value of each of `arguments`."""

    kind: Literal["confirmation"] = "confirmation"
    tool: str
    arguments: list[str] = Field(default_factory=list, description="The key arguments the turn names the values of.")
    words: list[str] = Field(default_factory=list, description="Words that name the action; the turn says one.")

    def text(self) -> str:
        """The assertion in one line."""
        named = "" if not self.arguments else f" with its {', '.join(self.arguments)}"
        return f"{self.tool} only right after the user said yes to a turn that named it{named}"


class Disclosure(BaseModel):
    """The chatbot states `fields` of a row of `table` only once one of the calls of `after` entitles it.

    A row is spoken of once the value of its `key` comes up in the dialog (said by the user, an argument or a
    result); a chatbot message that then states the value of one of its `fields` discloses it.
    """

    kind: Literal["disclosure"] = "disclosure"
    table: str
    key: str = Field(description="The column whose value names the row in a conversation (its id).")
    fields: list[str] = Field(min_length=1, description="The columns whose values are its details.")
    after: list[EarlierCall] = Field(min_length=1, description="Calls that entitle the disclosure: one is enough.")

    def text(self) -> str:
        """The assertion in one line."""
        return (f"{', '.join(self.fields)} of a {self.table} row only after "
                + " or ".join(earlier.text() for earlier in self.after))


class OrderAssertion(Order, Compiled):
    """An order compiled from a policy."""


class PreconditionAssertion(Precondition, Compiled):
    """A precondition compiled from a policy."""


class BoundAssertion(Bound, Compiled):
    """A bound compiled from a policy."""


class ForbiddenAssertion(Forbidden, Compiled):
    """A forbidden call compiled from a policy."""


class ConfirmationAssertion(Confirmation, Compiled):
    """A confirmation compiled from a policy."""


Body = Order | Precondition | Bound | Forbidden | Confirmation | Disclosure
"""What a rule says, whatever carries it (a compiled assertion, a rules file's rule)."""

Assertion = Annotated[
    OrderAssertion | PreconditionAssertion | BoundAssertion | ForbiddenAssertion | ConfirmationAssertion,
    Field(discriminator="kind"),
]
"""The kinds a run compiles from the policy text."""
