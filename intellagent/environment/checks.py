"""`@check`: a rule a program decides over a dialog's trace, one of the things a domain defines.

A check reads a dialog's `Trace` (`intellagent.checks.trace`), which holds the domain's environment,
which holds the domain's checks: so `Check` is generic in what it reads, and the environment and the
trace stand on each other's definitions nowhere.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, overload

from intellagent.artifacts import Category, Finding
from intellagent.errors import UsageError

T = TypeVar("T")
"""What a check reads: a dialog's `Trace`."""

Needs = Literal["trace", "world"]
"""What a check needs to decide: the conversation and its tool calls with their results (`trace`), or also the
database the chatbot worked on (`world`), which a production transcript does not come with."""


@dataclass(frozen=True, eq=False)
class Check(Generic[T]):
    """A deterministic check.

    Attributes:
        name: the function's name, which findings and reports cite.
        rule: the first paragraph of its docstring: the rule it enforces, in words a policy reader knows.
        function: the decorated function, `(trace) -> iterable of Finding`.
        category: the policy category whose rules it enforces, if it is one category's; describe then
            maps it to that category's policies when the model's mapping is not believed.
        every_dialog: whether it rules on its policies in every dialog, not only in those whose scenario
            sampled them: true of a check that reads every chatbot message (a made-up fact breaks the
            grounding rule whatever the scenario was about), not of one that needs a certain action.
        needs: `trace` for a check that reads only the messages and the tool calls with their results, which
            can then judge a production transcript; `world` (the default: a domain's check usually reads
            rows) for one that reads the database, not applicable where there is none.
        applies: whether a dialog gave the check something to rule on (a call of a tool it is about): where it
            did and the check found nothing, the check ruled that its policies held. None: it rules only where it
            finds a breach, or in every dialog when `every_dialog`.
    """

    name: str
    rule: str
    function: Callable[[T], Iterable[Finding]]
    category: Category | None = None
    every_dialog: bool = False
    needs: Needs = "world"
    applies: Callable[[T], bool] | None = None

    def __call__(self, trace: T) -> list[Finding]:
        """The check's findings on `trace`, each naming the check."""
        return [finding.model_copy(update={"check": self.name}) for finding in self.function(trace)]

    def ruled(self, trace: T, findings: list[Finding]) -> bool:
        """Whether the check ruled on its policies in the dialog of `trace`, where it found `findings`: it found a
        breach, it rules in every dialog, or the dialog gave it something to rule on."""
        return bool(findings) or self.every_dialog or (self.applies is not None and self.applies(trace))


@overload
def check(function: Callable[[T], Iterable[Finding]], /) -> Check[T]: ...
@overload
def check(
    *, category: Category | None = None, every_dialog: bool = False, needs: Needs = "world",
    tools: Iterable[str] = (), applies: Callable[[T], bool] | None = None,
) -> Callable[[Callable[[T], Iterable[Finding]]], Check[T]]: ...


def check(
    function: Callable[[T], Iterable[Finding]] | None = None, /, *, category: Category | None = None,
    every_dialog: bool = False, needs: Needs = "world", tools: Iterable[str] = (),
    applies: Callable[[T], bool] | None = None,
) -> Any:
    """Register a function of a dialog's `Trace` as a check; it yields a `Finding` per breach.

    Used bare (`@check`), or with the category of policies the check enforces
    (`@check(category="user_consent")`), `every_dialog=True` for a check whose subject is in every
    dialog (each chatbot message), so that it rules on its policies wherever it runs, `needs="trace"`
    for one that reads no database row, so that it judges production transcripts too, and `tools=[...]` for
    the tools whose calls it is about: a dialog that calls one gave it something to rule on, so that its
    silence there counts as its policies held (the report counts a policy as backed by a program only where
    one ruled); or, for what no list of tools says, `applies`, a function of the trace.

    Raises:
        UsageError: the function has no docstring stating its rule.
    """
    if function is None:
        return lambda decorated: check(decorated, category=category, every_dialog=every_dialog, needs=needs,
                                       tools=tools, applies=applies)
    doc = inspect.getdoc(function)
    if not doc:
        raise UsageError(f"check {function.__name__} has no docstring; state the rule it enforces in one sentence")
    named = frozenset(tools)
    if named and applies is None:
        applies = lambda trace: any(call.name in named for call in trace.calls)  # type: ignore[attr-defined]  # noqa: E731
    return Check(name=function.__name__, rule=doc.split("\n\n")[0].replace("\n", " "), function=function,
                 category=category, every_dialog=every_dialog, needs=needs, applies=applies)
