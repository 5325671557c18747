"""Running every check of a domain on a finished dialog."""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intellagent.artifacts import Finding, Message
from intellagent.checks.builtin import BUILTIN
from intellagent.checks.check import Check
from intellagent.checks.trace import Trace

if TYPE_CHECKING:
    from intellagent.environment import Environment

log = logging.getLogger("intellagent")


def every_check(environment: Environment) -> list[Check]:
    """The framework's checks, then the domain's own."""
    return [*BUILTIN, *environment.checks]


@lru_cache(maxsize=4)
def _dump(environment: Environment, path: Path, version: int) -> dict[str, list[dict[str, Any]]]:
    """An event's world as the chatbot found it, read once for all the dialogs that start from it (every
    trial, every τ-bench task): on a large world, reading it is seconds. `version` is the file's time, so
    a file made anew is read anew. The checks only read it."""
    with environment.session(path) as session:
        return environment.dump(session)


def run_checks(
    environment: Environment, messages: list[Message], *, before: Path | None, database: Path | None,
    changed: bool = True,
) -> tuple[list[str], list[Finding]]:
    """The names of the checks that ran on a dialog, and their findings.

    A check that raises is left out (and logged) rather than reported as a breach: a bug in a check
    says nothing about the chatbot.

    Args:
        environment: the domain.
        messages: the dialog's transcript.
        before: the event's database, as the chatbot found it (None: the dialog had none).
        database: the dialog's database, as the chatbot left it.
        changed: False when that file is byte for byte the event's: the checks need not read it again.
    """
    dump = _dump(environment, before, before.stat().st_mtime_ns) if before is not None else {}
    trace = Trace(messages=messages, environment=environment, before=dump, database=database, changed=changed)
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
