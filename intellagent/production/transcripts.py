"""Production conversations as dialogs: read, masked, checked, ready for the report's judge.

Each conversation of the transcripts file becomes a `Dialog` named `P` + its line number (P0007: line 7),
with every policy of the catalog to rule on (a real conversation was sampled from nothing), the name it
has in the file, and what the checks found. Only the checks that need nothing but the trace run
(`Check.needs`): confirmation before a write, grounding against the tool results in the transcript,
compiled assertions on calls and their order; those that need the database the chatbot worked on are
listed as not applicable. A line that holds no conversation becomes an `error` dialog that says which
line and why, logged and skipped: one bad line never stops the rest.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from intellagent.artifacts import Dialog, PolicyCatalog
from intellagent.checks import Check, Trace, check_trace, every_check
from intellagent.config import Config, TranscriptsConfig
from intellagent.environment.environment import Environment
from intellagent.errors import UsageError
from intellagent.production.formats import Conversation, Unreadable, read_transcripts
from intellagent.production.redaction import redacted

log = logging.getLogger("intellagent")

NOT_SIMULATED = "a production conversation: no simulated verdict"
"""The reason of a production dialog before it is judged: nothing concluded anything about it yet."""


def check_transcripts(config: Config, chatbot: object = None) -> None:
    """Before the run starts: a transcripts file that is not there is a one-line error, not an hour later.

    Raises:
        UsageError: `transcripts.path` names no file.
    """
    path = config.transcripts.path
    if path is not None and not path.is_file():
        raise UsageError(f"transcripts: file {path} not found; fix transcripts.path or --transcripts")


def production_id(line: int) -> str:
    """The dialog id of the conversation on a line of the transcripts file."""
    return f"P{line:04d}"


def production_dialogs(settings: TranscriptsConfig, environment: Environment, catalog: PolicyCatalog,
                       compiled: Sequence[Check[Trace]] = ()) -> list[Dialog]:
    """Every line of the transcripts file as a dialog: checked and masked, or an `error` naming the line.

    Args:
        settings: the file and what to mask in it.
        environment: the domain (its tools say which write and which need a yes; its checks run).
        catalog: the policies every conversation is judged on.
        compiled: the run's rules and compiled assertions, as checks.
    """
    assert settings.path is not None
    checks = [*every_check(environment), *compiled]
    dialogs = []
    for read in read_transcripts(settings.path):
        if isinstance(read, Unreadable):
            log.warning("transcripts: line %d of %s skipped: %s", read.line, settings.path.name, read.reason)
            dialogs.append(Dialog(id=production_id(read.line), role="production", status="error",
                                  reason=f"line {read.line}: {read.reason}", production=f"line {read.line}"))
        else:
            dialogs.append(_checked(read, settings, environment, catalog, checks))
    return dialogs


def _checked(conversation: Conversation, settings: TranscriptsConfig, environment: Environment,
             catalog: PolicyCatalog, checks: list[Check[Trace]]) -> Dialog:
    messages = redacted(conversation.messages, settings.redact)
    applicable = [check for check in checks if check.needs == "trace"]
    checked = check_trace(Trace(messages=messages, environment=environment), applicable)
    return Dialog(
        id=production_id(conversation.line),
        role="production",
        status="incomplete",
        reason=NOT_SIMULATED,
        policies=[policy.id for policy in catalog.policies],
        transcript=messages,
        turns=sum(message.role == "user" for message in messages),
        checks=checked.ran,
        findings=checked.findings,
        ruled=checked.ruled,
        inapplicable=[check.name for check in checks if check.needs == "world"],
        production=f"{conversation.name} (line {conversation.line})",
    )
