"""Compiled assertions read against the verified expected outcomes: one an outcome breaks is discarded.

An event's expected outcome is what a chatbot that keeps every sampled rule does there, verified by running
it on a copy of the event's world, so it is right by construction; an assertion compiled from a sampled
rule that faults it is wrong (a precondition stricter than the rule, an order the rule does not ask for).
Once the events are made, each assertion is evaluated on the synthetic dialog of every verified outcome
of an event that samples its rule: the expected calls rehearsed as a conversation (`outcomes.rehearsal`:
each write right after the chatbot stated it and the user said an explicit yes, so the framework's
conversational checks hold by construction), on the event's world, ending in the expected one. An
assertion with a finding there is discarded with the finding as its reason; assertions.json lists those in
force and those discarded, and only those in force run after the dialogs.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from intellagent.artifacts import (
    Assertion,
    AssertionsInForce,
    BoundAssertion,
    DiscardedAssertion,
    Event,
    PolicyCatalog,
    PreconditionAssertion,
)
from intellagent.artifacts.outcomes import ExpectedOutcome
from intellagent.checks.assertions import breaches
from intellagent.checks.trace import Trace, WorldRows
from intellagent.environment import Environment, worlds
from intellagent.outcomes.rehearsal import rehearsed
from intellagent.run_folder import RunFolder

log = logging.getLogger("intellagent")


def reviewed_assertions(environment: Environment, catalog: PolicyCatalog, events: list[Event], folder: RunFolder
                        ) -> AssertionsInForce:
    """Which of the catalog's assertions stand against the verified outcomes of `events`, and why the others do not.

    Args:
        folder: the run folder the events' worlds are stored in.
    """
    discarded: dict[str, DiscardedAssertion] = {}
    outcomes = 0
    for event in events:
        if event.status != "ok" or event.expected is None:
            continue
        sampled = [a for a in catalog.assertions if a.policy in event.policies and a.id not in discarded]
        if not sampled:  # nothing left to read against this outcome: neither rehearsed nor counted
            continue
        with tempfile.TemporaryDirectory(prefix="outcome-") as scratch:
            try:
                trace = outcome_trace(environment, event, event.expected, folder, Path(scratch),
                                      worlds_read=any(reads_world(assertion) for assertion in sampled))
            except FileNotFoundError as error:  # a world removed since: the outcome cannot be read, not a crash
                log.warning("event %s: its outcome was not read against the assertions: %s", event.id, error)
                continue
            outcomes += 1
            for assertion in sampled:
                found = next(breaches(assertion, trace), None)
                if found is not None:
                    discarded[assertion.id] = DiscardedAssertion(id=assertion.id, policy=assertion.policy,
                                                                 event=event.id, reason=found.message)
    return AssertionsInForce(in_force=[a.id for a in catalog.assertions if a.id not in discarded],
                             discarded=list(discarded.values()), outcomes=outcomes)


def reads_world(assertion: Assertion) -> bool:
    """Whether the assertion reads rows of the world (a precondition, a bound on rows), not the calls alone."""
    return isinstance(assertion, PreconditionAssertion) or (isinstance(assertion, BoundAssertion)
                                                            and assertion.measure == "rows")


def outcome_trace(environment: Environment, event: Event, expected: ExpectedOutcome, folder: RunFolder,
                  scratch: Path, *, worlds_read: bool = True) -> Trace:
    """The dialog a rule-keeping chatbot has in the event, as checks read it: the expected calls rehearsed, on the
    event's world (made whole in `scratch`), ending in the expected world; with no world when none is read
    (`worlds_read` false), sparing the copies of a large one."""
    messages, _ = rehearsed(environment, [(call.tool, call.arguments, call.result or "") for call in expected.calls])
    if event.database is None or not worlds_read:
        return Trace(messages=messages, environment=environment)
    start = scratch / "start.sqlite"
    worlds.materialize(folder.path(event.database), start)
    end = None
    if expected.world is not None:
        end = scratch / "end.sqlite"
        worlds.materialize(folder.path(expected.world), end)
    return Trace(messages=messages, environment=environment, before=WorldRows(environment, start), database=end,
                 start=start)
