"""A domain's rules file (`environment.rules`, e.g. `rules.yml`): its rules as reviewed code.

Each rule states one thing a program decides over a dialog (a body of `artifacts.assertions`, or a flow's
procedure), and carries what makes it reviewable:

- `cite`: the passage of the policy document it comes from (`L12`, `L12-14`: its lines) and the words
  of it the rule encodes, quoted;
- `scope`: the tools it rules on, and the flows it belongs to (by their words);
- `examples`: at least one dialog it must pass (`keeps`) and one it must fail (`breaks`): a rule that
  fails its own examples is refused before a run uses it;
- `discarded`: set by a person, with why, to keep a rule in the file but out of every run.

A run reads the file, maps each rule to the policies it extracted by the passage cited (no model call) and
runs it after every dialog as the check `rule <id>`; describe's compiler proposes rules in this form beside
the file, never over it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from intellagent.artifacts.assertions import Bound, Confirmation, Disclosure, Forbidden, Order, Precondition
from intellagent.artifacts.procedures import SopEdge, SopStep

RULE = "rule "
"""How the check of a rules file's rule is named: `rule refund-to-original-method`."""


class Citation(BaseModel):
    """Where in the policy document a rule comes from."""

    model_config = ConfigDict(extra="forbid")

    passage: str = Field(pattern=r"^L\d+(-\d+)?$", description="The passage's lines: L12, or L12-14.")
    words: str = Field(min_length=3, description="The words of the passage the rule encodes, quoted as written.")


class Scope(BaseModel):
    """What a rule rules on."""

    model_config = ConfigDict(extra="forbid")

    tools: list[str] = Field(default_factory=list, description="The tools whose calls it rules on (none: its "
                             "body's).")
    flows: list[str] = Field(default_factory=list, description="The flows it belongs to, by their words (none: "
                             "any flow the cited passage's policies belong to).")


class Turn(BaseModel):
    """One step of an example dialog: the user says, the chatbot says, or a tool is called (by the chatbot,
    or by the user on its own side), with what it returned."""

    model_config = ConfigDict(extra="forbid")

    user: str | None = None
    chatbot: str | None = None
    call: str | None = Field(default=None, description="The tool called.")
    args: dict[str, Any] = Field(default_factory=dict)
    result: Any = Field(default="ok", description="What the call returned (a text starting 'Error' is a failure).")
    by: Literal["chatbot", "user"] = "chatbot"

    @model_validator(mode="after")
    def _one_step(self) -> Turn:
        given = [name for name in ("user", "chatbot", "call") if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"an example's step is one of user, chatbot or call, not {', '.join(given) or 'none'}")
        return self


Rows = dict[str, list[dict[str, Any]]]


class Example(BaseModel):
    """A dialog a rule must pass or fail, with the rows it reads (only the columns that matter)."""

    model_config = ConfigDict(extra="forbid")

    note: str = Field(default="", description="What the example shows, in a few words.")
    world: Rows = Field(default_factory=dict, description="The rows the chatbot found, by table.")
    ended: Rows | None = Field(default=None, description="The rows it left (default: as found).")
    dialog: list[Turn] = Field(min_length=1)


class Examples(BaseModel):
    """The dialogs a rule must pass and those it must fail."""

    model_config = ConfigDict(extra="forbid")

    keeps: list[Example] = Field(default_factory=list)
    breaks: list[Example] = Field(default_factory=list)


class Header(BaseModel):
    """What every rule of a rules file carries besides what it says."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9][\w.-]*$", description="Its name, which findings cite: `rule <id>`.")
    cite: Citation
    scope: Scope = Field(default_factory=Scope)
    examples: Examples = Field(default_factory=Examples)
    discarded: str | None = Field(default=None, description="Set by a person: why the rule is kept out of runs.")

    @property
    def check(self) -> str:
        """The name of its check, which findings and reports cite."""
        return RULE + self.id


class Procedure(BaseModel):
    """A flow's procedure as a rule: its steps and their order (or a Graphviz file of them, read when the rules
    file is); a step marked `required` must come before the steps after it."""

    kind: Literal["procedure"] = "procedure"
    flow: str = Field(description="The flow's name.")
    steps: list[SopStep] = Field(default_factory=list)
    edges: list[SopEdge] = Field(default_factory=list)
    dot: str | None = Field(default=None, description="A Graphviz file of the procedure, relative to the rules file.")

    def text(self) -> str:
        """The procedure in one line: its required steps."""
        required = [step.label() for step in self.steps if step.required]
        return f"{self.flow}: " + (f"{', '.join(required)} where the procedure puts them" if required else
                                   "no required step")


class OrderRule(Order, Header):
    """An order."""


class PreconditionRule(Precondition, Header):
    """A precondition."""


class BoundRule(Bound, Header):
    """A bound."""


class ForbiddenRule(Forbidden, Header):
    """A forbidden call."""


class ConfirmationRule(Confirmation, Header):
    """A confirmation."""


class DisclosureRule(Disclosure, Header):
    """A disclosure."""


class ProcedureRule(Procedure, Header):
    """A procedure."""


Rule = Annotated[
    OrderRule | PreconditionRule | BoundRule | ForbiddenRule | ConfirmationRule | DisclosureRule | ProcedureRule,
    Field(discriminator="kind"),
]


class RulesFile(BaseModel):
    """A rules file: its rules, in the order a person wrote them."""

    model_config = ConfigDict(extra="forbid")

    rules: list[Rule] = Field(default_factory=list)


class RuleInForce(BaseModel):
    """A rule a run uses, with the policies of the run it enforces (mapped by its citation)."""

    rule: Rule
    policies: list[str] = Field(default_factory=list)


class RefusedRule(BaseModel):
    """A rule of the file a run does not use, and why: it fails its examples, names what the domain lacks, or a
    person discarded it."""

    id: str
    reason: str
