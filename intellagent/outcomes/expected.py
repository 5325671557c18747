"""An event's expected outcome made final: its calls as they ran, the facts to state that the event bears out,
and the world the calls leave, stored beside the event's as its changes over it.

The expected world is `events/<id>.expected.delta.json`, a delta over the event's own world, so that a
dialog's world (a delta over the same world) is graded by comparing the two deltas' records. A published
task's gold actions make an outcome of the same kind, replayed once on the task set's database
(`replayed_outcome`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intellagent.artifacts import Event, ExpectedCall, ExpectedOutcome
from intellagent.artifacts.outcomes import said
from intellagent.environment import worlds
from intellagent.outcomes.floor import floor
from intellagent.run_folder import RunFolder

if TYPE_CHECKING:
    from intellagent.environment import Environment
    from intellagent.outcomes.proposal import Proposal
    from intellagent.outcomes.verification import Run
    from intellagent.populate.scratch import ScratchWorld

SHOWN_DROPS = 3
"""Dropped calls an event's `expected_error` quotes."""

OUTPUT_WORDS = 6
"""Words an expected output holds at most: a reply must contain it word for word, which suits a value (an amount,
a date, a name) and no sentence; the embedded model proposed whole sentences of the scenario."""


def with_outcome(env: Environment, folder: RunFolder, event: Event, proposal: Proposal, run: Run | None, *,
                 background: Path) -> Event:
    """The event with its verified outcome stored, or, when none remains, with why (`expected_error`).

    Args:
        proposal: the proposal as its runs left it.
        run: its last run, which went clean (None when the model gave no proposal).
        background: the world the event's own stands on, whose digest the expected world's is taken over.
    """
    if proposal.error is not None or run is None:
        return _without(folder, event, proposal.error or "no proposal")
    emptier = _emptier(env, event, proposal)
    if emptier is not None:
        return _without(folder, event, emptier)
    assert event.database is not None
    calls = [ExpectedCall(tool=call.tool, arguments=call.arguments, writes=env.tool(call.tool).writes,
                          policies=call.policies, result=result)
             for call, result in zip(proposal.calls, run.results, strict=True)]
    sources = [*run.results, json.dumps(event.user_rows, ensure_ascii=False), event.scenario, env.policy]
    outputs = [output for output in proposal.outputs if len(output.split()) <= OUTPUT_WORDS and said(output, sources)]
    unfounded = [f'output "{output}": ' + ("a sentence, which no reply is held to word for word"
                                          if len(output.split()) > OUTPUT_WORDS else
                                          "no call's result, row of the event, the scenario or the policy holds it")
                 for output in proposal.outputs if output not in outputs]
    world, touched = store_world(folder, event.id, base=folder.path(event.database), changes=run.world)
    digest = worlds.digest(run.over_background, background) if run.world else event.digest
    expected = ExpectedOutcome(calls=calls, forbidden=proposal.forbidden, outputs=outputs, world=world, digest=digest,
                               touched=touched, dropped=[*proposal.dropped, *unfounded], repairs=proposal.repairs)
    expected = expected.model_copy(update={"floor": floor(env, expected, run.world)})
    return event.model_copy(update={"expected": expected, "expected_error": None})


def _emptier(env: Environment, event: Event, proposal: Proposal) -> str | None:
    """Why what is left of the proposal is no outcome, if it is not: an outcome is never emptier than the scenario,
    so it fails when a change it makes was given up, when the change the user is entitled to is in no call left,
    or when nothing is left to grade."""
    if proposal.lost_writes:
        return f"a change of the outcome could not be verified, and without it the outcome would ask for less " \
               f"than the scenario: {_shown(proposal.dropped)}"
    if event.entitled is not None and not any(env.tool(call.tool).writes for call in proposal.calls):
        return f'the change the user is entitled to ("{event.entitled.request}") is in no verified call' + (
            f": {_shown(proposal.dropped)}" if proposal.dropped else "")
    if not proposal.calls and not proposal.forbidden:
        return "nothing to grade is left: " + (_shown(proposal.dropped) if proposal.dropped else "no call, no "
                                              "forbidden change")
    return None


def _shown(dropped: list[str]) -> str:
    more = f"; and {len(dropped) - SHOWN_DROPS} more" if len(dropped) > SHOWN_DROPS else ""
    return "; ".join(dropped[:SHOWN_DROPS]) + more


def replayed_outcome(env: Environment, scratch: ScratchWorld, folder: RunFolder, event: Event,
                     calls: Sequence[tuple[str, dict[str, Any]]], outputs: list[str],
                     start: worlds.Changes | None = None) -> ExpectedOutcome:
    """The outcome of calls known to be right (a published task's gold actions, of either side): replayed as they
    are on the event's world, with no model and no check. `scratch` is a copy of the event's world's root, which
    `start`, the event's changes over it, makes the event's world (none: the root is the event's world)."""
    with scratch.attempt() as session:
        if start:
            scratch.apply(start)
        scratch.written()
        results = [env.call_tool(session, name, arguments, by=None) for name, arguments in calls]
        changes = scratch.changes(tables=scratch.written())
    assert event.database is not None
    base = folder.path(event.database)
    world, touched = store_world(folder, event.id, base=base, changes=changes)
    known = {tool.name: tool.writes for tool in env.every_tool}
    expected = ExpectedOutcome(
        calls=[ExpectedCall(tool=name, arguments=arguments, writes=known.get(name, True), result=result)
               for (name, arguments), result in zip(calls, results, strict=True)],
        outputs=outputs, world=world, digest=worlds.digest({**(start or {}), **changes}, worlds.root(base)),
        touched=touched)
    return expected.model_copy(update={"floor": floor(env, expected, changes)})


def store_world(folder: RunFolder, event_id: str, *, base: Path, changes: worlds.Changes) -> tuple[str | None,
                                                                                                   list[str]]:
    """Store the world the expected calls leave, as its changes over the event's world `base`; its name in the
    run folder (None when they change nothing: no file) and the records they change."""
    name = RunFolder.expected_worlds.stored(event_id)
    path = folder.path(name)
    if not changes:
        path.unlink(missing_ok=True)
        return None, []
    worlds.save_delta(path, base=base, found=changes)
    return name, list(worlds.records(changes))


def _without(folder: RunFolder, event: Event, reason: str) -> Event:
    folder.path(RunFolder.expected_worlds.stored(event.id)).unlink(missing_ok=True)
    return event.model_copy(update={"expected": None, "expected_error": reason})
