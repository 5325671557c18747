"""Running every check of a domain on a finished dialog."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from intellagent.artifacts import Claim, Finding, Message
from intellagent.checks.builtin import BUILTIN
from intellagent.checks.trace import Trace, WorldRows
from intellagent.environment.checks import Check
from intellagent.imports import culprit, error_line

if TYPE_CHECKING:
    from intellagent.environment.environment import Environment

log = logging.getLogger("intellagent")


def every_check(environment: Environment) -> list[Check]:
    """The framework's checks, then the domain's own."""
    return [*BUILTIN, *environment.checks]


@lru_cache(maxsize=4)
def _event_rows(environment: Environment, path: Path, version: int) -> WorldRows:
    """An event's world as the checks read it, shared by the dialogs that start from the same file (every
    τ-bench task's, every trial of an event stored whole): each table is read once for them all. `version`
    is the file's time, so a file made anew is read anew."""
    return WorldRows(environment, path)


class Checked(NamedTuple):
    """What the checks made of a dialog."""

    ran: list[str]
    """The names of the checks that ran."""
    findings: list[Finding]
    ruled: list[str]
    """The names of those that ruled on their policies: they found a breach, rule in every dialog, or the dialog
    gave them something to rule on (see `Check.ruled`)."""


def run_checks(
    environment: Environment, messages: list[Message], *, before: Path | None, database: Path | None,
    written: list[str] | None = None, compiled: Sequence[Check] = (), claims: list[Claim] | None = None,
    agreed: Mapping[int, bool] | None = None,
) -> Checked:
    """The checks that ran on a dialog, their findings, and those that ruled.

    A check that raises is left out (and logged) rather than reported as a breach: a bug in a check
    says nothing about the chatbot.

    Args:
        environment: the domain.
        messages: the dialog's transcript.
        before: the event's database, as the chatbot found it (None: the dialog had none).
        database: the dialog's database, as the chatbot left it.
        written: the tables the dialog wrote to, when already known (none: the checks need not read the
            dialog's database again); by default the checks find them out.
        compiled: the run's rules and compiled assertions, as checks (`checks.compiled_checks`), run after the
            domain's.
        claims: the false claims the user made (its persona's), which ground nothing the chatbot says.
        agreed: a model's reading of the user's answers where one was asked (see `Trace.agreed`).
    """
    rows = _event_rows(environment, before, before.stat().st_mtime_ns) if before is not None else {}
    trace = Trace(messages=messages, environment=environment, before=rows, database=database, start=before,
                  written=written, claims=claims or [], agreed=agreed or {})
    return check_trace(trace, [*every_check(environment), *compiled])


def check_trace(trace: Trace, checks: Sequence[Check]) -> Checked:
    """The checks that ran on a trace, their findings and those that ruled; a check that raises is left out (and
    logged): a bug in a check says nothing about the chatbot."""
    checked = Checked([], [], [])
    for check in checks:
        try:
            found = check(trace)
            ruled = check.ruled(trace, found)
        except Exception as error:  # a check's own bug: not the chatbot's breach
            log.warning("check %s could not run: %s: %s", culprit(check.function, error), type(error).__name__,
                        error_line(error))
            continue
        checked.ran.append(check.name)
        checked.findings.extend(found)
        if ruled:
            checked.ruled.append(check.name)
    return checked
