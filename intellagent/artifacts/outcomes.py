"""What a correct chatbot does in an event, and how close a dialog came to it.

Every event carries an expected outcome (`Event.expected`): the tool calls a chatbot that keeps every
sampled rule makes, the writes it must not make, and the facts it must tell the user. It is proposed by a
model and verified by running it with the domain's own tools on a copy of the event's world, whose end
state is stored beside the event's. A τ-bench task's gold actions and outputs are an expected outcome of
the same kind. Every dialog played on an event with one is graded against it (`Dialog.grade`) by one
grader, whichever way the outcome was made.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field


def call_text(tool: str, arguments: dict[str, Any]) -> str:
    """A call as one line, as reports cite it: name(key=value, ...), values as JSON."""
    shown = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items())
    return f"{tool}({shown})"


def said(output: str, texts: Iterable[str]) -> bool:
    """Whether one of `texts` contains `output`, as τ-bench matches an output to a reply: ignoring case, and the
    text's commas ("1000" is in "$1,000")."""
    wanted = output.lower()
    return any(wanted in text.lower().replace(",", "") for text in texts)


class ExpectedCall(BaseModel):
    """A call a rule-keeping chatbot makes in the event, as verified on a copy of its world."""

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    writes: bool = Field(description="Whether the tool may change the world (a read establishes what a write needs).")
    policies: list[str] = Field(
        default_factory=list, description="The sampled policies that require this call (none: a read a write needs)."
    )
    result: str | None = Field(default=None, description="What the tool returned when the outcome was verified.")

    def text(self) -> str:
        """The call as one line."""
        return call_text(self.tool, self.arguments)


class ForbiddenCall(BaseModel):
    """A write the sampled rules forbid in this event: the cancellation a rule refuses, the compensation a rule
    withholds."""

    tool: str
    arguments: dict[str, Any] | None = Field(
        default=None,
        description="The arguments that make the call forbidden (a call matches when it has every one of them, "
        "compared as `intellagent.outcomes.matching` compares calls); None: any call of the tool.",
    )
    policies: list[str] = Field(description="The sampled policies that forbid it.")
    reason: str = Field(default="", description="Why, in one line.")

    def text(self) -> str:
        """The forbidden call as one line (`tool(…)` for any call of the tool)."""
        return f"{self.tool}(…)" if self.arguments is None else call_text(self.tool, self.arguments)


class OutcomeFloor(BaseModel):
    """How two chatbots that need no test score on an outcome: one that does nothing, and one that makes every
    change it is asked for, the forbidden ones too. An outcome either of them reaches does not tell a rule-keeping
    chatbot from it."""

    nothing: bool = Field(description="The empty trace (no call, no word) reaches the outcome: it does not tell a "
                          "chatbot that does nothing from one that keeps the rules.")
    reckless: bool = Field(description="The reckless trace (the expected calls, every forbidden write as well, every "
                           "output said) reaches the outcome: it forbids nothing that a grade can catch.")


class ExpectedOutcome(BaseModel):
    """What a chatbot that keeps every sampled rule does in the event, verified by running it."""

    calls: list[ExpectedCall] = Field(default_factory=list, description="In the order they are made.")
    forbidden: list[ForbiddenCall] = Field(default_factory=list)
    outputs: list[str] = Field(
        default_factory=list, description="Facts the chatbot must tell the user; a reply must contain each one."
    )
    world: str | None = Field(
        default=None,
        description="The world the expected calls leave, relative to the run: its difference from the event's "
        "(`events/<id>.expected.delta.json`); None when the calls change nothing.",
    )
    digest: str | None = Field(default=None, description="sha256 of that world's rows.")
    touched: list[str] = Field(
        default_factory=list, description="The records the expected calls change, as `table key` (the reward compares "
        "these and the ones the dialog changed)."
    )
    dropped: list[str] = Field(
        default_factory=list,
        description="Proposed calls that were not kept, each with why (an error the repair did not mend, a world "
        "that broke a rule, a call the rules forbid).",
    )
    repairs: int = Field(default=0, description="Calls sent back to the model with their error before verification.")
    floor: OutcomeFloor | None = Field(
        default=None, description="What a chatbot that does nothing, and one that makes every change asked, score on "
        "it, graded as every dialog is (None: an outcome stored before floors were measured)."
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def kind(self) -> Literal["delivery", "refusal"]:
        """`delivery` when a rule-keeping chatbot changes something for the user here, `refusal` when it only
        looks things up and refuses what the rules forbid."""
        return "delivery" if any(call.writes for call in self.calls) else "refusal"


class OutcomeGrade(BaseModel):
    """A dialog graded against its event's expected outcome.

    The counts are kept beside the ratios so that a report sums them per tool or per flow rather than
    averaging ratios.
    """

    reward: float = Field(
        description="1.0 when the world ended as the expected calls leave it (on the records either changed), "
        "every output was said and no forbidden write was made; else 0.0."
    )
    state_match: bool = Field(description="The world ended as the expected calls leave it.")
    outputs: dict[str, bool] = Field(default_factory=dict, description="Each expected output: whether a reply said it.")
    forbidden_made: list[str] = Field(
        default_factory=list, description="Forbidden writes the chatbot made (that ran without an error), as calls."
    )
    missed: list[str] = Field(default_factory=list, description="Expected writes the chatbot did not make, as calls.")
    missed_reads: list[str] = Field(
        default_factory=list, description="Expected look-ups the chatbot did not make; they never cost the reward."
    )
    unexpected: list[str] = Field(
        default_factory=list, description="Writes the chatbot made that no expected call makes (an attempt that "
        "returned an error changed nothing and is not one)."
    )
    diff: list[str] = Field(default_factory=list, description="Records whose end state differs from the expected one.")
    expected_calls: int = Field(description="Calls in the expected outcome.")
    made_calls: int = Field(
        description="Calls the chatbot made on the dialog's world (a tool that does not act on it, as thinking, is "
        "not counted unless an expected call is of it)."
    )
    matched_calls: int = Field(description="Calls of the chatbot that match an expected call by tool and arguments.")
    matched: dict[int, int] = Field(
        default_factory=dict, description="Each call that matched an expected one, by its position among the "
        "dialog's calls (in transcript order, the user's own among them) → the expected call's position."
    )
    breaking: dict[int, list[int]] = Field(
        default_factory=dict, description="Each forbidden write made, by its position among the dialog's calls → "
        "the positions of the forbidden writes it is."
    )
    argument_credit: float | None = Field(
        default=None, description="The mean share of each expected call's arguments that the closest call of its "
        "tool got right (0 for a call never made); None when no call was expected."
    )
    tools: dict[str, list[int]] = Field(
        default_factory=dict, description="Per tool: [expected, made, matched], for precision and recall per tool."
    )
    sides: dict[str, list[int]] = Field(
        default_factory=dict, description="Where the user has tools of its own: per side, 'company' (the chatbot's "
        "tools) and 'user' (the user's, which the chatbot guides it through, or calls itself in a solo dialog), "
        "[expected, made, matched]; empty otherwise."
    )
    progress: float = Field(
        description="The share of the expected calls made in a valid order before the chatbot's first wrong write: "
        "each write after the calls the outcome makes before it and before those it makes after it."
    )

    @property
    def passed(self) -> bool:
        """Whether the reward is 1."""
        return self.reward == 1.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def precision(self) -> float | None:
        """Matched calls among the calls made (None when none was made)."""
        return self.matched_calls / self.made_calls if self.made_calls else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def recall(self) -> float | None:
        """Matched calls among the expected ones (None when none was expected)."""
        return self.matched_calls / self.expected_calls if self.expected_calls else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def f1(self) -> float | None:
        """The harmonic mean of precision and recall (None when either is undefined or both are 0)."""
        p, r = self.precision, self.recall
        return None if p is None or r is None or p + r == 0 else 2 * p * r / (p + r)
