"""An expected outcome verified by running it: its calls made in order with the domain's own tools on a copy
of the event's world, the world they leave checked by the domain's rules.

A run happens in populate's scratch copy of the background (an attempt, rolled back at its end), made the
event's world first. It stops at the first call that fails: one that returns an error, a write that
leaves a row breaking a rule of the domain (a row's own rules, or those over related rows), or a call a
domain check (or a rule of the event's policies: the rule wins) finds at fault once every call has run
(see `rehearsal`). A failed call goes back to the model
once, with what went wrong; after that, or once `MAX_REPAIRS` are used, it is dropped with its reason, and
the rest run again. So what remains is a rule-keeping chatbot's calls as they run in this world, never a
gold that breaks a rule; when nothing does, the event has no outcome and says why (see `expected`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlmodel import Session, SQLModel

from intellagent.artifacts import Event
from intellagent.checks import Check, Trace, check_trace
from intellagent.environment import database, worlds
from intellagent.outcomes.proposal import MAX_REPAIRS, Proposal, ProposedCall
from intellagent.outcomes.rehearsal import EventRows, SessionRows, rehearsed

if TYPE_CHECKING:
    from intellagent.populate.event import EventDeps


@dataclass(frozen=True)
class Failure:
    """The call of a run that failed, why, and what each call up to it returned."""

    index: int
    reason: str
    results: list[str]


@dataclass(frozen=True)
class Run:
    """The proposed calls run on a copy of the event's world.

    Attributes:
        results: what each call that ran returned.
        failure: the call that failed, if one did (the run stopped there).
        world: what the calls change in the event's world (empty on a failure).
        over_background: the world they leave, as its changes over the background (for its digest).
    """

    results: list[str]
    failure: Failure | None = None
    world: worlds.Changes = field(default_factory=dict)
    over_background: worlds.Changes = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """Where a proposal stands after its runs: a failed call to send back to the model, or its last run."""

    proposal: Proposal
    failure: Failure | None = None
    run: Run | None = None


def verified(deps: EventDeps, event: Event, proposal: Proposal) -> Verdict:
    """Run the proposal until its calls run clean, dropping each failed call that cannot go back to the model
    (no call is made here).

    Returns:
        the proposal as it then stands, with the failure to send back, or with the clean run (of no calls,
        when every call was dropped or none was proposed).
    """
    proposal = admissible(deps, proposal)
    while proposal.calls:
        run = run_calls(deps, event, proposal.calls)
        failure = run.failure
        if failure is None:
            return Verdict(proposal, run=run)
        if not proposal.calls[failure.index].mended and proposal.repairs < MAX_REPAIRS:
            return Verdict(proposal, failure=failure)
        proposal = proposal.dropping(failure.index, failure.reason,
                                     writes=deps.env.tool(proposal.calls[failure.index].tool).writes)
    return Verdict(proposal, run=Run(results=[]))


def admissible(deps: EventDeps, proposal: Proposal) -> Proposal:
    """The proposal without the calls no rule-keeping chatbot makes: any after a call that ends the conversation.
    (One the proposal also forbids never gets here: its answer was refused and sent back with the contradiction
    named, see `answer.proposal_problems`.)"""
    kept, ended = proposal, False
    for position, call in enumerate(proposal.calls):
        if ended:
            kept = kept.dropping(position - (len(proposal.calls) - len(kept.calls)),
                                 "the conversation has ended by then", failed=False)
        else:
            ended = deps.env.tool(call.tool).ends_dialog
    return kept


def run_calls(deps: EventDeps, event: Event, calls: list[ProposedCall]) -> Run:
    """Make `calls` in order on a copy of the event's world, stopping at the first that fails."""
    assert event.database is not None  # a populated event
    start = worlds.stored_changes(deps.ctx.folder.path(event.database))
    scratch, env = deps.scratch, deps.env
    with scratch.attempt() as session:
        scratch.apply(start)
        checks = deps.checks_for(event)
        before = _event_rows(deps, session, start) if checks else None
        scratch.written()  # what making the event's world wrote is no call's
        results: list[str] = []
        written: set[str] = set()
        for index, call in enumerate(calls):
            result = env.call_tool(session, call.tool, call.arguments, by=None)
            results.append(result)
            if result.startswith("Error"):
                return Run(results, Failure(index, f"it returned {result}", results))
            tables = scratch.written()
            if tables:
                written |= tables
                problems = _broken(deps, session, start, tables)
                if problems:
                    return Run(results, Failure(index, f"it leaves a row that breaks a rule: {problems[0]}", results))
        if before is not None:
            failure = _found_at_fault(deps, session, calls, results, before, written, checks)
            if failure is not None:
                return Run(results, failure)
        world = scratch.changes_since(start, tables=written)
        over_background = scratch.changes(tables=set(start) | written)
    return Run(results, world=world, over_background=over_background)


def _broken(deps: EventDeps, session: Session, start: worlds.Changes, tables: set[str]) -> list[str]:
    """What the rows the calls changed in `tables` break, over the event's world `start`."""
    changed: list[SQLModel] = []
    removed: list[tuple[str, dict[str, Any]]] = []
    for name, found in deps.scratch.changes_since(start, tables=tables).items():
        model = deps.env.table(name)
        where = [found.columns.index(column) for column in found.key]
        for row in found.rows:
            key = tuple(row[i] for i in where)
            held = session.get(model, key if len(key) > 1 else key[0])
            if held is not None:
                changed.append(held)
        if found.removed:
            removed += [(name, dict(zip(found.columns, row, strict=True)))
                        for row in _as_they_were(deps, name, found, start)]
    return deps.env.broken_changes(session, changed, removed)


def _as_they_were(deps: EventDeps, name: str, found: worlds.TableChanges, start: worlds.Changes) -> list[list[Any]]:
    """The rows `found` removes, as the event's world held them: the event's own, or the background's."""
    where = [found.columns.index(column) for column in found.key]
    own = {tuple(row[i] for i in where): row for row in (start[name].rows if name in start else [])}
    gone = [tuple(key) for key in found.removed]
    background = deps.scratch.held(name, found, [list(key) for key in gone if key not in own], background=True)
    return [own[key] if key in own else background[key] for key in gone if key in own or key in background]


def _event_rows(deps: EventDeps, session: Session, start: worlds.Changes) -> EventRows:
    """The event's world as the checks read it: the background's rows with the event's own in their place."""
    own: dict[str, list[dict[str, Any]]] = {}
    replaced: dict[str, set[tuple[Any, ...]]] = {}
    keys: dict[str, list[str]] = {}
    for name, found in start.items():
        model = deps.env.table(name)
        where = [found.columns.index(column) for column in found.key]
        identities = [tuple(row[i] for i in where) for row in found.rows]
        held = (session.get(model, key if len(key) > 1 else key[0]) for key in identities)
        own[name] = [database.dumped(row) for row in held if row is not None]
        replaced[name] = {*identities, *(tuple(key) for key in found.removed)}
        keys[name] = found.key
    return EventRows(deps.background_rows, own, replaced, keys)


def _found_at_fault(deps: EventDeps, session: Session, calls: list[ProposedCall], results: list[str],
                    before: EventRows, written: set[str], checks: list[Check]) -> Failure | None:
    """The first call `checks` find at fault in the rehearsed conversation, if any; a finding that names no call
    is the last write's (the world it left)."""
    messages, positions = rehearsed(deps.env, [(call.tool, call.arguments, result)
                                               for call, result in zip(calls, results, strict=True)])
    trace = Trace(messages=messages, environment=deps.env, before=before, written=sorted(written),
                  ended=SessionRows(deps.env, session))
    findings = check_trace(trace, checks).findings
    if not findings:
        return None
    finding = findings[0]
    writes = [i for i, call in enumerate(calls) if deps.env.tool(call.tool).writes]
    index = positions.get(finding.turn if finding.turn is not None else -1, (writes or [len(calls) - 1])[-1])
    return Failure(index, f"it breaks a rule ({finding.check}): {finding.message}", results[:index + 1])

