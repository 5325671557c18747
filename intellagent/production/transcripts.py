"""Production conversations as dialogs: read, masked, checked, ready for the report's judge.

Each conversation of the transcripts file (read in its format, `formats`) becomes a `Dialog` named `P` + its
number in the file's order (P0007: the seventh), with every policy of the catalog to rule on (a real conversation
was sampled from nothing), its name and place in the file, and what the checks found. What is personal in it is
masked first (`redaction`), before the checks, the file or any model see it. Only the checks that need nothing
but the trace run (`Check.needs`): confirmation before a write, grounding against the tool results in the
transcript, compiled assertions on calls and their order; those that need the database the chatbot worked on are
listed as not applicable. A record that holds no conversation becomes an `error` dialog that says where and
why, logged and skipped: one bad record never stops the rest.
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
from intellagent.production.redaction import masks_for

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


def production_id(number: int) -> str:
    """The dialog id of the `number`th conversation (or unreadable record) of the transcripts file."""
    return f"P{number:04d}"


def production_dialogs(settings: TranscriptsConfig, environment: Environment, catalog: PolicyCatalog,
                       compiled: Sequence[Check[Trace]] = ()) -> list[Dialog]:
    """Every conversation of the transcripts file as a dialog, masked and checked, and every record that holds none as
    an `error` naming its place.

    Args:
        settings: the file, its format and what to mask in it.
        environment: the domain (its tools say which write and which need a yes; its checks run).
        catalog: the policies every conversation is judged on.
        compiled: the run's rules and compiled assertions, as checks.
    """
    assert settings.path is not None
    checks = [*every_check(environment), *compiled]
    dialogs = []
    for read in read_transcripts(settings.path, settings.format):
        if isinstance(read, Unreadable):
            log.warning("transcripts: %s of %s skipped: %s", read.place, settings.path.name, read.reason)
            dialogs.append(Dialog(id=production_id(read.number), role="production", status="error",
                                  reason=f"{read.place}: {read.reason}", production=read.place))
        else:
            dialogs.append(_checked(read, settings, environment, catalog, checks))
    return dialogs


def _checked(conversation: Conversation, settings: TranscriptsConfig, environment: Environment,
             catalog: PolicyCatalog, checks: list[Check[Trace]]) -> Dialog:
    masks = masks_for(conversation.messages, settings.redact)
    messages = masks.messages(conversation.messages)
    applicable = [check for check in checks if check.needs == "trace"]
    checked = check_trace(Trace(messages=messages, environment=environment), applicable)
    return Dialog(
        id=production_id(conversation.number),
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
        production=masks.text(f"{conversation.name} ({conversation.format}, {conversation.place})"),
    )
