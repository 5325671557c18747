"""The populate stage: each scenario becomes an event, a database in which the scenario is true.

Per scenario (fanned out, `workers` at a time):

    plan ─► constrain ─► assign ─► check ─► done
      │                              │ ▲
      └─ (nothing to insert, or ─────┘ ├─ loosen     (each rejection: values no rule fixes are generated)
          populate.lean)               │
                                       ├─ repair     (the rejected rows' governed values, at most
                                       │              `max_repairs` times)
                                       └─ fall_back  (repairs used up: the model's values of a rejected
                                                      row are given up, then the row itself)

plan, constrain, assign and repair are one structured answer each; loosen, fall_back and check make
no call: check assembles the rows (symbols, references, generated values), validates and inserts them
into a copy of the background world (one per process, each attempt rolled back), and on success stores
the event's world as its difference from the background (see `intellagent.environment.worlds`) and
records the event with its texts made concrete by substitution and the facts given up on the way.
The model contributes only the scenario's facts: keys, references and every value no rule is about come
from the framework, so whatever the model answers, the event is a valid world (at worst the background
world alone, with every fact noted as given up). In τ-bench mode a published task's event is τ-bench's
initial database, with no model call (see `populate.published`). A resumed run populates the scenarios
with no event yet, or whose event failed (an outage is worth another try; a failure the cache holds
costs nothing to repeat).
Each scenario is populated by the run's executor (`EventWork`: in this process, or in a Ray worker, see
`intellagent.executors`); this process records its event.
"""

from __future__ import annotations

import operator
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, TypedDict

from langchain_core.messages import BaseMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send

from intellagent.artifacts import Event, Scenario
from intellagent.context import ItemWork, RunContext
from intellagent.environment import worlds
from intellagent.files import JsonlFile
from intellagent.llm import LLM
from intellagent.populate import (
    AssembledRow,
    Assignment,
    BackgroundWorld,
    Constraints,
    Plan,
    Rejection,
    ScratchWorld,
    Tables,
    ValuesSchema,
    assemble,
    constraints_model,
    describe_counts,
    describe_rejected,
    describe_samples,
    describe_tables,
    example_names,
    fall_back,
    final_texts,
    insert_rows,
    loosen,
    plan_model,
    user_rows,
)
from intellagent.populate.background import BACKGROUND, build_background
from intellagent.populate.published import task_database, task_event
from intellagent.prompt_files import render
from intellagent.run_folder import RunFolder
from intellagent.stage import StageItems

if TYPE_CHECKING:
    from intellagent.environment import Environment



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
    event: Event


class StageState(TypedDict):
    """The scenarios to populate, and the ids of the events recorded so far."""

    scenarios: list[Scenario]
    done: Annotated[list[str], operator.add]


@dataclass
class Shared:
    """What every event of a run shares: the domain, the background world, its copy rows are tried in, and the
    model."""

    ctx: RunContext
    env: Environment
    tables: Tables
    world: BackgroundWorld
    scratch: ScratchWorld
    world_prompt: str
    samples: str
    llm: LLM
    lean: bool

    @classmethod
    @contextmanager
    def open(cls, ctx: RunContext) -> Iterator[Shared]:
        """Read the run's background world (built and checked once, see `build_background`), and open the
        process's scratch copy of it, removed on exit."""
        env = ctx.environment
        tables = Tables(env.tables)
        background = build_background(ctx)
        world = BackgroundWorld.load(env, background, tables)
        prompt = render("populate/world", policy=env.policy, tables=describe_tables(tables),
                        counts=describe_counts(world))
        samples = describe_samples(world, per_table=ctx.config.populate.sample_rows, seed=str(ctx.config.seed))
        llm = ctx.llms["populate"]
        setting = ctx.config.populate.lean
        # On the embedded model the rewritten texts and the constraints and values steps were most of
        # the stage's output tokens, and added nothing: the texts came back copied without a symbol,
        # and the rules restated the plan's symbols ("user_id: U1").
        lean = setting == "yes" or (setting == "auto" and llm.spec.provider == "local")
        with ScratchWorld.open(background) as scratch:
            yield cls(ctx=ctx, env=env, tables=tables, world=world, scratch=scratch,
                      world_prompt=str(prompt[0].content), samples=samples, llm=llm, lean=lean)

    def messages(self, step: str, **values: Any) -> list[BaseMessage]:
        """A step's prompt, after the shared description of the world."""
        return render(f"populate/{step}", world=self.world_prompt, **values)

    @staticmethod
    def stored(scenario: Scenario) -> str:
        """Where the event's world is stored, relative to the run: its rows over the background world."""
        return RunFolder.event_worlds.stored(scenario.id)

    def seed(self, scenario: Scenario) -> str:
        """The seed of every random choice for this event."""
        return f"{self.ctx.config.seed}:{scenario.id}"


def forget_event(folder: RunFolder, scenario: Scenario) -> None:
    """Remove what an attempt at a scenario's event left in the run folder: its stored world."""
    folder.path(Shared.stored(scenario)).unlink(missing_ok=True)


@dataclass
class EventWork:
    """Populating scenarios, as any executor runs them (see `intellagent.executors`): the domain, the background
    world and the model, read once per process, and the state machine of one event."""

    shared: Shared
    graph: CompiledStateGraph
    shared_files: ClassVar[tuple[str, ...]] = (BACKGROUND,)

    @classmethod
    @asynccontextmanager
    async def open(cls, ctx: RunContext, given: None = None) -> AsyncIterator[EventWork]:
        """The work of the stage."""
        with Shared.open(ctx) as shared:
            yield cls(shared=shared, graph=build_event_graph(shared))

    async def do(self, scenario: Scenario) -> Event:
        """The scenario's event: a valid world where it is true, or why none could be made."""
        result = await self.graph.ainvoke({"scenario": scenario}, config={"run_name": f"event {scenario.id}"})
        return result["event"]

    @staticmethod
    def reads(folder: RunFolder, scenario: Scenario) -> list[str]:
        """Nothing besides the background world."""
        return []

    @staticmethod
    def writes(folder: RunFolder, scenario: Scenario) -> list[str]:
        """The event's stored world."""
        return [Shared.stored(scenario)]


def build_event_graph(shared: Shared) -> CompiledStateGraph:
    """The state machine that turns one scenario into an event."""
    max_repairs = shared.ctx.config.populate.max_repairs

    async def plan(state: EventState) -> dict[str, Any]:
        scenario = state["scenario"]
        messages = shared.messages(
            "plan", description=scenario.description, expected_behaviour=scenario.expected_behaviour,
            **example_names(shared.tables),
        )
        answer = await shared.llm.answer(messages, plan_model(shared.tables, texts=not shared.lean),
                                         step="populate/plan")
        return {"plan": Plan.from_answer(answer, shared.tables, shared.world), "assignment": Assignment(), "rounds": 0,
                "repairs": 0, "constraints": Constraints(), "dropped": []}

    async def constrain(state: EventState) -> dict[str, Any]:
        planned = state["plan"]
        schema = constraints_model(tuple((row.label, row.table) for row in planned.rows), shared.tables)
        answer = await shared.llm.answer(
            shared.messages("constraints", plan=planned.describe()), schema, step="populate/constraints"
        )
        return {"constraints": Constraints.from_answer(answer, planned)}

    async def assign(state: EventState) -> dict[str, Any]:
        planned, constraints = state["plan"], state["constraints"]
        asked = planned.asked_values(shared.tables, constraints)
        assignment = Assignment()
        if asked.empty:
            return {"assignment": assignment}  # no rule fixes any value: everything is generated
        messages = shared.messages(
            "values",
            plan=planned.describe(),
            constraints=constraints.describe_rules(),
            details=constraints.describe_details(),
            samples=shared.samples,
        )
        answer = await shared.llm.answer(messages, ValuesSchema(shared.tables, asked.rows, asked.symbols,
                                                                name="RowValues"), step="populate/values")
        assignment.update(answer, labels=planned.labels)
        return {"assignment": assignment}

    async def check(state: EventState) -> dict[str, Any]:
        # async although it never awaits: it then runs on the event loop, one event at a time, never
        # in a worker thread next to another event's check.
        return _check(shared, state)

    async def loosen_rejected(state: EventState) -> dict[str, Any]:
        rejected = {rejection.label: rejection.messages for rejection in state["rejections"]}
        changed = loosen(state["plan"], state["assignment"], rejected=rejected,
                         governed=state["constraints"].governed, tables=shared.tables)
        return {"plan": state["plan"], "assignment": state["assignment"], "loosened": changed}

    async def repair(state: EventState) -> dict[str, Any]:
        planned = state["plan"]
        labels = [rejection.label for rejection in state["rejections"]]
        asked = planned.asked_repairs(shared.tables, labels, state["constraints"])
        messages = shared.messages(
            "repair",
            plan=planned.describe(),
            constraints=state["constraints"].describe_rules(),
            rejected=describe_rejected(state["rows"], state["rejections"]),
            samples=shared.samples,
        )
        answer = await shared.llm.answer(messages, ValuesSchema(shared.tables, asked.rows, asked.symbols,
                                                                name="RowRepairs"), step="populate/repair")
        changed = state["assignment"].update(answer, labels=planned.labels, empty_clears=True)
        return {"assignment": state["assignment"], "rounds": state["rounds"] + 1,
                "repairs": state["repairs"] + len(labels), "stalled": not changed}

    async def give_up_facts(state: EventState) -> dict[str, Any]:
        rejected = {rejection.label: rejection.messages for rejection in state["rejections"]}
        notes = fall_back(state["plan"], state["assignment"], rejections=rejected, tables=shared.tables)
        return {"plan": state["plan"], "assignment": state["assignment"], "fell_back": bool(notes), "dropped": notes}

    async def give_up(state: EventState) -> dict[str, Any]:
        forget_event(shared.ctx.folder, state["scenario"])
        reasons = " | ".join(rejection.describe() for rejection in state["rejections"])
        rounds = state["rounds"]
        return {"event": _error_event(
            state["scenario"], f"rows still rejected after {rounds} repair{'s' * (rounds != 1)}: {reasons}",
            repairs=state["repairs"],
        )}

    def route_after_plan(state: EventState) -> str:
        return "constrain" if state["plan"].rows and not shared.lean else "check"

    def route_after_check(state: EventState) -> str:
        # Every rejection first tries generated values at no call: a repair may bring back a value
        # that only generation gets right.
        return END if "event" in state else "loosen"

    def route_after_loosen(state: EventState) -> str:
        return "check" if state["loosened"] else repair_or_fall_back(state)

    def repair_or_fall_back(state: EventState) -> str:
        labels = [rejection.label for rejection in state["rejections"]]
        asked = state["plan"].asked_repairs(shared.tables, labels, state["constraints"])
        return "repair" if state["rounds"] < max_repairs and not asked.empty else "fall_back"

    def route_after_repair(state: EventState) -> str:
        # An answer that changes nothing would be asked again word for word: fall back at once.
        return "fall_back" if state["stalled"] else "check"

    def route_after_fall_back(state: EventState) -> str:
        return "check" if state["fell_back"] else "give_up"

    graph = StateGraph(EventState)
    for name, node in (("plan", plan), ("constrain", constrain), ("assign", assign), ("check", check),
                       ("loosen", loosen_rejected), ("repair", repair), ("fall_back", give_up_facts),
                       ("give_up", give_up)):
        graph.add_node(name, node)
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", route_after_plan, ["constrain", "check"])
    graph.add_edge("constrain", "assign")
    graph.add_edge("assign", "check")
    graph.add_conditional_edges("check", route_after_check, [END, "loosen"])
    graph.add_conditional_edges("loosen", route_after_loosen, ["check", "repair", "fall_back"])
    graph.add_conditional_edges("repair", route_after_repair, ["check", "fall_back"])
    graph.add_conditional_edges("fall_back", route_after_fall_back, ["check", "give_up"])
    graph.add_edge("give_up", END)
    return graph.compile()


def build_graph(folder: RunFolder, items: StageItems[Event], populate: ItemWork) -> CompiledStateGraph:
    """The stage: one branch per scenario, each populated by `populate` and recorded in `items`."""

    def fan_out(state: StageState) -> list[Send]:
        return [Send("populate_event", {"scenario": scenario}) for scenario in state["scenarios"]]

    async def populate_event(state: dict[str, Scenario]) -> dict[str, Any]:
        scenario = state["scenario"]

        def failed(reason: str) -> Event:
            forget_event(folder, scenario)
            return _error_event(scenario, reason)

        event = await items.run(lambda: populate(scenario), failed=failed)
        return {"done": [event.id]}

    graph = StateGraph(StageState)
    graph.add_node("populate_event", populate_event)
    graph.add_conditional_edges(START, fan_out, ["populate_event"])
    graph.add_edge("populate_event", END)
    return graph.compile()


async def run(ctx: RunContext) -> list[Event]:
    """Populate every scenario of scenarios.jsonl that has no event yet; write events.jsonl and events/, and
    return every event of the run."""
    scenarios = [s for s in ctx.folder.scenarios.require() if s.status == "ok"]
    artifact = ctx.folder.events
    recorded = artifact.finished()
    pending = [scenario for scenario in scenarios if scenario.id not in recorded]
    published = [scenario for scenario in pending if scenario.task is not None]
    if published:
        _record_task_events(ctx, published, artifact)
    pending = [scenario for scenario in pending if scenario.task is None]
    if pending:
        items = StageItems(ctx, stage="populate", artifact=artifact, total=len(pending),
                           done=len(scenarios) - len(pending))
        async with ctx.executor.stage(ctx, EventWork) as populate:
            await build_graph(ctx.folder, items, populate).ainvoke(
                {"scenarios": pending, "done": []},
                config={"max_concurrency": ctx.config.workers, "run_name": "populate"})
    return artifact.finalize()


def _record_task_events(ctx: RunContext, scenarios: list[Scenario], artifact: JsonlFile[Event]) -> None:
    """τ-bench mode: each published task's event, on the task set's database (no model call, nothing to fail)."""
    database, digest = task_database(ctx)
    progress = ctx.progress.stage("populate", len(scenarios))
    for scenario in scenarios:
        artifact.append(task_event(scenario, database, digest))
        progress.advance()


def _check(shared: Shared, state: EventState) -> dict[str, Any]:
    """Assemble the rows, then validate and insert them into the background world's scratch copy."""
    scenario, plan = state["scenario"], state["plan"]
    assembly = assemble(plan, state["assignment"], tables=shared.tables, world=shared.world, seed=shared.seed(scenario))
    with shared.scratch.attempt() as session:
        inserted, rejections = insert_rows(shared.env, shared.tables, session, assembly.rows)
        if rejections:
            return {"rows": assembly.rows, "rejections": rejections}
        known = user_rows(inserted)  # read before the attempt's rollback expires the rows
        found = shared.scratch.changes(tables={row.table for row in assembly.rows})
    background = shared.ctx.folder.path(BACKGROUND)
    worlds.save_delta(shared.ctx.folder.path(shared.stored(scenario)), base=background, found=found)
    description, expected = final_texts(scenario, plan, state["constraints"], assembly.symbols)
    event = Event(
        id=scenario.id,
        policies=scenario.policies,
        challenge=scenario.challenge,
        scenario=description,
        expected_behaviour=expected,
        symbols=assembly.symbols.as_text(),
        user_rows=known,
        database=shared.stored(scenario),
        digest=worlds.digest(found, background),
        repairs=state["repairs"],
        dropped=[*state.get("dropped", []), *assembly.dropped],
    )
    return {"rows": assembly.rows, "rejections": [], "event": event}


def _error_event(scenario: Scenario, reason: str, *, repairs: int = 0) -> Event:
    return Event(id=scenario.id, status="error", error=reason, policies=scenario.policies,
                 challenge=scenario.challenge, repairs=repairs)

