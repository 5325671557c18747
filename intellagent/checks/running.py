"""Running every check of a domain on a finished dialog."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from intellagent.artifacts import Finding, Message
from intellagent.checks.builtin import BUILTIN
from intellagent.checks.check import Check
from intellagent.checks.trace import Trace, WorldRows

if TYPE_CHECKING:
    from intellagent.environment import Environment

log = logging.getLogger("intellagent")


def every_check(environment: Environment) -> list[Check]:
    """The framework's checks, then the domain's own."""
    return [*BUILTIN, *environment.checks]


def run_checks(
    environment: Environment, messages: list[Message], *, before: Path | None, database: Path | None,
    written: list[str] | None = None,
) -> tuple[list[str], list[Finding]]:
    """The names of the checks that ran on a dialog, and their findings.

    A check that raises is left out (and logged) rather than reported as a breach: a bug in a check
    says nothing about the chatbot.

    Args:
        environment: the domain.
        messages: the dialog's transcript.
        before: the event's database, as the chatbot found it (None: the dialog had none).
        database: the dialog's database, as the chatbot left it.
        written: the tables the dialog wrote to, when already known (none: the checks need not read the
            dialog's database again); by default the checks find them out.
    """
    rows = WorldRows(environment, before) if before is not None else {}
    trace = Trace(messages=messages, environment=environment, before=rows, database=database,
                  changed=written is None or bool(written), start=before, written=written)
    names: list[str] = []
    findings: list[Finding] = []
    for check in every_check(environment):
        try:
            found = check(trace)
        except Exception as error:  # a check's own bug: not the chatbot's breach
            log.warning("check %s could not run: %s: %s", check.name, type(error).__name__, error)
            continue
        names.append(check.name)
        findings += found
    return names, findings
