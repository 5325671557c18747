"""`@check`: a rule a program decides over a dialog's trace."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from intellagent.artifacts import Finding
from intellagent.errors import UsageError

if TYPE_CHECKING:
    from intellagent.checks.trace import Trace

CheckFunction = Callable[["Trace"], Iterable[Finding]]


@dataclass(frozen=True, eq=False)
class Check:
    """A deterministic check.

    Attributes:
        name: the function's name, which findings and reports cite.
        rule: the first paragraph of its docstring: the rule it enforces, in words a policy reader knows.
        function: the decorated function, `(trace) -> iterable of Finding`.
    """

    name: str
    rule: str
    function: CheckFunction

    def __call__(self, trace: Trace) -> list[Finding]:
        """The check's findings on `trace`, each naming the check."""
        return [finding.model_copy(update={"check": self.name}) for finding in self.function(trace)]


def check(function: CheckFunction) -> Check:
    """Register a function of a dialog's `Trace` as a check; it yields a `Finding` per breach.

    Raises:
        UsageError: the function has no docstring stating its rule.
    """
    doc = inspect.getdoc(function)
    if not doc:
        raise UsageError(f"check {function.__name__} has no docstring; state the rule it enforces in one sentence")
    return Check(name=function.__name__, rule=doc.split("\n\n")[0].replace("\n", " "), function=function)
