"""The populate stage: each scenario becomes an event, a database in which the scenario is true.

    START ═► populate_event ─► END      (one per scenario with no event yet, `workers` at a time)

Each scenario is populated by the run's executor (`EventWork`: in this process, or in a Ray worker, see
`intellagent.executors`), which runs the event graph; this process records its event:

    plan ─► constrain ─► assign ─► check ─► propose ─► verify ─► done
      │                              │ ▲ ▲     ▲            │ │
      └─ (nothing to insert, or ─────┘ │ │     └────────────┘ │ (a failed call sent back to the model,
          populate.lean)               │ │                    │  at most twice per event)
                                       │ └──── redraw ◄───────┘ (a drafted change that failed on the rows:
                                       │                         the values it names drawn anew, no call,
                                       │                         `WORLD_DRAWS` times; keep_drawn when a draw
                                       │                         breaks a row's rule: the world before it)
                                       ├─ loosen     (each rejection: values no rule fixes are generated)
                                       ├─ repair     (the rejected rows' governed values, at most
                                       │              `max_repairs` times)
                                       ├─ fall_back  (repairs used up: the model's values of a rejected
                                       │              row are given up, then the row itself)
                                       └─ give_up    (nothing left to give up: the event is an error)

plan, constrain, assign, repair and propose are one structured answer each; loosen, fall_back, redraw, check
and verify make no call: check assembles the rows (symbols, references, generated values), validates and
inserts them into a copy of the background world (one per process, each attempt rolled back), and on
success stores the event's world as its difference from the background (see
`intellagent.environment.worlds`) and makes the event with its texts made concrete by substitution and the
facts given up on the way. Then the event's expected outcome: propose asks the model what a chatbot that
keeps every sampled rule does in it (or, after a failed run, for a call in place of the one that failed;
with `populate.drafted_outcomes`, an event whose user is entitled to a change has that change drafted from its
rows, the model asked only for the arguments they leave open, see `intellagent.outcomes.draft`);
verify runs the calls with the domain's tools in a copy of the event's world and checks what they leave,
and records the event with its outcome stored beside its world, or with why none could be verified.
The work of each step is in `intellagent.populate.event` and `intellagent.outcomes`; whatever the model
answers, the event is a valid world (at worst the background world alone, with every fact noted as given
up), and its outcome one that ran clean in it, or none. The run's
scenario source (`intellagent.modes`) builds the world the events start from before the run's first
call (`prepare`), and may have events ready that need no populating: in τ-bench mode a published task's
event is τ-bench's initial database, made with no model call.
A resumed run populates the scenarios with no event yet, or whose event failed (an outage is worth
another try; a failure the cache holds costs nothing to repeat). An outcome is held to the run's rules and
compiled assertions as it is verified: where one of them disagrees, the outcome is repaired or dropped,
and the rule stands.
"""

from __future__ import annotations

import operator
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, ClassVar, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from intellagent.artifacts import Event, Scenario
from intellagent.context import ItemWork, RunContext
from intellagent.files import JsonlFile
from intellagent.modes import scenario_source
from intellagent.outcomes import (
    WORLD_DRAWS,
    Failure,
    Proposal,
    carried_over,
    drafted,
    drawable,
    is_drafted,
    mended,
    proposed,
    redrafted,
    verified,
    with_outcome,
)
from intellagent.populate import AssembledRow, Assignment, Constraints, Plan, Rejection, draw_anew, fall_back, loosen
from intellagent.populate.background import BACKGROUND
from intellagent.populate.event import (
    EventDeps,
    assigned,
    checked,
    constrained,
    failed_event,
    planned,
    repaired,
)
from intellagent.run_folder import RunFolder
from intellagent.stage import StageItems

Update = dict[str, Any]


class EventState(TypedDict, total=False):
    """One scenario on its way to an event."""

    scenario: Scenario
    plan: Plan
    constraints: Constraints
    assignment: Assignment
    rows: list[AssembledRow]
    rejections: list[Rejection]
    rounds: int
    repairs: int
    loosened: bool
    stalled: bool
    fell_back: bool
    dropped: Annotated[list[str], operator.add]
    event: Event | None
    proposal: Proposal
    failure: Failure | None
    draws: int
    redraw: str | None
    carried: tuple[Event, Proposal] | None


EventRuntime = Runtime[EventDeps]


# ── one event ───────────────────────────────────────────────────────────────────────────────


async def plan(state: EventState, runtime: EventRuntime) -> Update:
    """The scenario's rows as symbols; nothing assigned, constrained or repaired yet."""
    return {"plan": await planned(runtime.context, state["scenario"]), "assignment": Assignment(), "rounds": 0,
            "repairs": 0, "constraints": Constraints(), "dropped": []}


async def constrain(state: EventState, runtime: EventRuntime) -> Update:
    """The rules the policy puts on the rows' values."""
    return {"constraints": await constrained(runtime.context, state["plan"])}


async def assign(state: EventState, runtime: EventRuntime) -> Update:
    """The values those rules are about."""
    return {"assignment": await assigned(runtime.context, state["plan"], state["constraints"])}


async def check(state: EventState, runtime: EventRuntime) -> Update:
    """The rows assembled, validated and tried in the background world's copy; the event if none is rejected."""
    # async although it never awaits: it then runs on the event loop, one event at a time, never in a
    # worker thread next to another event's check.
    attempt = checked(runtime.context, state["scenario"], state["plan"], state["assignment"], state["constraints"],
                      repairs=state["repairs"], dropped=state.get("dropped", []), draw=state.get("draws", 0))
    update: Update = {"rows": attempt.rows, "rejections": attempt.rejections}
    return update if attempt.event is None else {**update, "event": attempt.event}


async def loosen_rejected(state: EventState, runtime: EventRuntime) -> Update:
    """The rejected values no rule fixes, generated instead (no call)."""
    rejected = {rejection.label: rejection.messages for rejection in state["rejections"]}
    changed = loosen(state["plan"], state["assignment"], rejected=rejected, governed=state["constraints"].governed,
                     tables=runtime.context.tables)
    return {"plan": state["plan"], "assignment": state["assignment"], "loosened": changed}


async def repair(state: EventState, runtime: EventRuntime) -> Update:
    """The rejected rows' governed values, asked of the model again."""
    changed = await repaired(runtime.context, state["plan"], state["constraints"], state["assignment"], state["rows"],
                             state["rejections"])
    return {"assignment": state["assignment"], "rounds": state["rounds"] + 1,
            "repairs": state["repairs"] + len(state["rejections"]), "stalled": not changed}


async def give_up_facts(state: EventState, runtime: EventRuntime) -> Update:
    """The model's values of the rejected rows given up, then the rows themselves, each noted."""
    rejected = {rejection.label: rejection.messages for rejection in state["rejections"]}
    notes = fall_back(state["plan"], state["assignment"], rejections=rejected, tables=runtime.context.tables)
    return {"plan": state["plan"], "assignment": state["assignment"], "fell_back": bool(notes), "dropped": notes}


async def give_up(state: EventState, runtime: EventRuntime) -> Update:
    """Nothing left to give up: the event is an error, with the rules its rows still break."""
    reasons = " | ".join(rejection.describe() for rejection in state["rejections"])
    rounds = state["rounds"]
    reason = f"rows still rejected after {rounds} repair{'s' * (rounds != 1)}: {reasons}"
    return {"event": failed_event(runtime.context.ctx.folder, state["scenario"], reason, repairs=state["repairs"])}


async def propose(state: EventState, runtime: EventRuntime) -> Update:
    """The event's expected outcome as the model proposes it (with `populate.drafted_outcomes`, the change the user
    is entitled to, drafted from its rows), or, after a run in which a call failed, that call mended by the model."""
    deps, event, failure, carried = runtime.context, state["event"], state.get("failure"), state.get("carried")
    assert event is not None
    drafting = is_drafted(deps, event)
    if failure is None and carried is not None:
        return {"proposal": carried_over(deps, event, *carried), "carried": None}
    if failure is None:
        return {"proposal": await (drafted if drafting else proposed)(deps, event)}
    if drafting:
        return {"proposal": await redrafted(deps, event, state["proposal"], failure), "failure": None}
    return {"proposal": await mended(deps, event, state["proposal"], failure.index, failure.reason, failure.results),
            "failure": None}


async def verify(state: EventState, runtime: EventRuntime) -> Update:
    """The proposal run in a copy of the event's world (no call): the event with its outcome, unless a drafted
    change failed on the world (drawn anew, see `redraw`) or a failed call goes back to the model."""
    # async although it never awaits, as check: one event's run at a time in the process's copy of the world.
    deps, draws = runtime.context, state.get("draws", 0)
    assert state["event"] is not None
    verdict = verified(deps, state["event"], state["proposal"])
    if verdict.failure is not None:
        # A failure comes back only for a call the model has not mended yet (see `verified`): a draft's first.
        if (draws < WORLD_DRAWS and is_drafted(deps, state["event"])
                and drawable(deps, state["event"], verdict.failure.reason)):
            return {"proposal": verdict.proposal, "redraw": verdict.failure.reason}
        return {"proposal": verdict.proposal, "failure": verdict.failure}
    event = with_outcome(deps.env, deps.ctx.folder, state["event"], verdict.proposal, verdict.run,
                         background=deps.ctx.folder.path(BACKGROUND))
    return {"proposal": verdict.proposal, "event": event}


async def redraw(state: EventState, runtime: EventRuntime) -> Update:
    """The entitled change failed on the rows as planned: the values its failure names given up, and the world drawn
    anew under a seed of its own (no call), the change's answered arguments carried over."""
    assert state["event"] is not None and state["redraw"] is not None
    notes = draw_anew(state["plan"], state["assignment"], failure=state["redraw"], tables=runtime.context.tables)
    return {"plan": state["plan"], "assignment": state["assignment"], "draws": state.get("draws", 0) + 1,
            "dropped": notes, "carried": (state["event"], state["proposal"]), "event": None, "redraw": None}


async def keep_drawn(state: EventState) -> Update:
    """A world drawn anew broke a rule of the rows: the event as it was before (its world, stored, is still the
    one on disk), its change verified once more and then sent back to the model; a valid event is never lost to
    a draw."""
    assert state["carried"] is not None
    event, proposal = state["carried"]
    return {"event": event, "proposal": proposal, "carried": None, "draws": WORLD_DRAWS}


def route_after_plan(state: EventState, runtime: EventRuntime) -> str:
    """Constrain the planned rows, or check them at once (no rows, or `populate.lean`)."""
    return "constrain" if state["plan"].rows and not runtime.context.lean else "check"


def route_after_check(state: EventState) -> str:
    """An event made: on to its expected outcome; a world drawn anew that broke a row's rule: back to the one
    before it; else every rejection first tries generated values at no call (a repair may bring back a value
    that only generation gets right)."""
    if state.get("event") is not None:
        return "propose"
    return "keep_drawn" if state.get("carried") is not None else "loosen"


def route_after_verify(state: EventState) -> str:
    """A drafted change that failed on the rows draws the world anew; another failed call goes back to the model;
    else the event is done."""
    if state.get("redraw") is not None:
        return "redraw"
    return "propose" if state.get("failure") is not None else END


def route_after_loosen(state: EventState, runtime: EventRuntime) -> str:
    """Check again if anything was generated anew; else repair while repairs are left, or fall back."""
    if state["loosened"]:
        return "check"
    labels = [rejection.label for rejection in state["rejections"]]
    asked = state["plan"].asked_repairs(runtime.context.tables, labels, state["constraints"])
    repairs_left = state["rounds"] < runtime.context.ctx.config.populate.max_repairs
    return "repair" if repairs_left and not asked.empty else "fall_back"


def route_after_repair(state: EventState) -> str:
    """Check the repaired values; an answer that changed nothing would be asked again word for word: fall back."""
    return "fall_back" if state["stalled"] else "check"


def route_after_fall_back(state: EventState) -> str:
    """Check what is left, or give up when nothing was."""
    return "check" if state["fell_back"] else "give_up"


@cache
def build_event_graph() -> CompiledStateGraph[EventState, EventDeps, EventState, EventState]:
    """The state machine that turns one scenario into an event, compiled once (the run's shared pieces are
    given as the runtime context, an `EventDeps`)."""
    graph = StateGraph(EventState, context_schema=EventDeps)
    for name, node in (("plan", plan), ("constrain", constrain), ("assign", assign), ("check", check),
                       ("loosen", loosen_rejected), ("repair", repair), ("fall_back", give_up_facts),
                       ("give_up", give_up), ("propose", propose), ("verify", verify), ("redraw", redraw),
                       ("keep_drawn", keep_drawn)):
        graph.add_node(name, node)
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", route_after_plan, ["constrain", "check"])
    graph.add_edge("constrain", "assign")
    graph.add_edge("assign", "check")
    graph.add_conditional_edges("check", route_after_check, ["propose", "loosen", "keep_drawn"])
    graph.add_edge("keep_drawn", "verify")
    graph.add_edge("propose", "verify")
    graph.add_conditional_edges("verify", route_after_verify, ["propose", "redraw", END])
    graph.add_edge("redraw", "check")
    graph.add_conditional_edges("loosen", route_after_loosen, ["check", "repair", "fall_back"])
    graph.add_conditional_edges("repair", route_after_repair, ["check", "fall_back"])
    graph.add_conditional_edges("fall_back", route_after_fall_back, ["check", "give_up"])
    graph.add_edge("give_up", END)
    return graph.compile()


@dataclass
class EventWork:
    """Populating scenarios, as any executor runs them (see `intellagent.executors`): what the events share,
    read once per process, and the event graph."""

    deps: EventDeps
    shared_files: ClassVar[tuple[str, ...]] = (BACKGROUND, RunFolder.policies.name)

    @classmethod
    @asynccontextmanager
    async def open(cls, ctx: RunContext, given: None = None) -> AsyncIterator[EventWork]:
        """The work of the stage."""
        with EventDeps.open(ctx) as deps:
            yield cls(deps=deps)

    async def do(self, scenario: Scenario) -> Event:
        """The scenario's event: a valid world where it is true, or why none could be made."""
        result = await build_event_graph().ainvoke({"scenario": scenario}, context=self.deps,
                                                   config={"run_name": f"event {scenario.id}"})
        return result["event"]

    @staticmethod
    def reads(folder: RunFolder, scenario: Scenario) -> list[str]:
        """Nothing besides the background world."""
        return []

    @staticmethod
    def writes(folder: RunFolder, scenario: Scenario) -> list[str]:
        """The event's stored world, and the world its expected calls leave."""
        return [EventDeps.stored(scenario), RunFolder.expected_worlds.stored(scenario.id)]


# ── the stage ───────────────────────────────────────────────────────────────────────────────


class StageState(TypedDict):
    """The scenarios to populate, and the ids of the events recorded so far."""

    scenarios: list[Scenario]
    done: Annotated[list[str], operator.add]


class ScenarioToPopulate(TypedDict):
    """One scenario, sent to `populate_event`."""

    scenario: Scenario


@dataclass(frozen=True)
class PopulateDeps:
    """What the stage's nodes work with (the stage graph's runtime context), fixed while it runs.

    Attributes:
        items: the events, recorded in events.jsonl as each is made.
        populate: makes one scenario's event, wherever the run's executor runs it.
    """

    folder: RunFolder
    items: StageItems[Event]
    populate: ItemWork


def route_scenarios(state: StageState) -> list[Send]:
    """One branch per scenario, run `workers` at a time."""
    return [Send("populate_event", ScenarioToPopulate(scenario=scenario)) for scenario in state["scenarios"]]


async def populate_event(task: ScenarioToPopulate, runtime: Runtime[PopulateDeps]) -> Update:
    """One scenario's event, recorded; a failure is recorded as an event with status `error`."""
    deps, scenario = runtime.context, task["scenario"]
    event = await deps.items.run(lambda: deps.populate(scenario),
                                 failed=lambda reason: failed_event(deps.folder, scenario, reason))
    return {"done": [event.id]}


@cache
def build_graph() -> CompiledStateGraph[StageState, PopulateDeps, StageState, StageState]:
    """The stage's state machine, compiled once (the run is given as the runtime context, a `PopulateDeps`)."""
    graph = StateGraph(StageState, context_schema=PopulateDeps)
    graph.add_node("populate_event", populate_event)
    graph.add_conditional_edges(START, route_scenarios, ["populate_event"])
    graph.add_edge("populate_event", END)
    return graph.compile()


def prepare(ctx: RunContext) -> None:
    """Before the run's first call: the world the run's events start from, built and checked (see the run's
    scenario source, `intellagent.modes`)."""
    scenario_source(ctx).prepare()


async def run(ctx: RunContext) -> list[Event]:
    """Populate every scenario of scenarios.jsonl that has no event yet; write events.jsonl and events/, and
    return every event of the run."""
    scenarios = [s for s in ctx.folder.scenarios.require() if s.status == "ok"]
    artifact = ctx.folder.events
    recorded = artifact.finished()
    pending = [scenario for scenario in scenarios if scenario.id not in recorded]
    ready = scenario_source(ctx).ready_events(pending)
    if ready:
        _record(ctx, ready, artifact)
    made = {event.id for event in ready}
    pending = [scenario for scenario in pending if scenario.id not in made]
    if pending:
        items = StageItems(ctx, stage="populate", artifact=artifact, total=len(pending),
                           done=len(scenarios) - len(pending))
        async with ctx.executor.stage(ctx, EventWork) as populate:
            await build_graph().ainvoke(
                StageState(scenarios=pending, done=[]), context=PopulateDeps(ctx.folder, items, populate),
                config={"max_concurrency": ctx.workers, "run_name": "populate"})
    return artifact.finalize()


def _record(ctx: RunContext, events: list[Event], artifact: JsonlFile[Event]) -> None:
    """The events the scenario source made ready, recorded with no model call (nothing to fail)."""
    progress = ctx.progress.stage("populate", len(events))
    for event in events:
        artifact.append(event)
        progress.advance()
