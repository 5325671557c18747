"""The simulate stage: one dialog per valid event and trial, run side by side, each on its own copy of
the event's world, appended to dialogs.jsonl as it finishes with what it changed in that world.

    START ──dispatch (Send per event and trial still to do)──→ dialog ──→ END

Each dialog is played by the run's executor (`DialogWork`: in this process, or in a Ray worker, see
`intellagent.executors`), which plays the dialog graph (`graphs.dialog`) in its setting
(`simulate.setting`: the dialog's world, its checks and its grade), with the simulated user and the
grader the event calls for (`intellagent.modes`); this process records it.
A calibrated run (`calibrate`) also plays the chatbot's mutants (see `simulate.mutants`), each on a
few events whose scenario samples the rule it breaks; their dialogs are in dialogs.jsonl too, marked
with the mutant's name, and mutants.json says how each was made.
Where the user has tools of its own, `simulate.dual_control` says whether a dialog is played dual, solo
or both ways (`simulate.control`).
Under `--trials auto` the dialogs are played in rounds (`TrialRounds`): after each, the events whose verdicts
are noisy get one trial more, within `simulate.trials_budget` (see `simulate.trial_plan`).
A resumed run reads dialogs.jsonl first and plays only the dialogs not recorded yet, or recorded as
`error` (an outage, a chatbot that crashed: worth another try once the cause is gone).
"""

from __future__ import annotations

import operator
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Annotated, ClassVar, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from intellagent.artifacts import Dialog, Event
from intellagent.chatbots import Chatbot, select_chatbot
from intellagent.checks import Check, Trace
from intellagent.context import ItemWork, RunContext
from intellagent.environment import worlds
from intellagent.modes import grader, user_role
from intellagent.run_folder import RunFolder
from intellagent.simulate.control import Control, played_controls, solo_id
from intellagent.simulate.mutants import calibration_mutants, mutant_dialog_id, mutant_events
from intellagent.simulate.setting import checks_in_force, played_dialog, served_world
from intellagent.simulate.trial_plan import TrialRounds
from intellagent.simulate.trials import trial_id
from intellagent.stage import StageItems

from .dialog import run_dialog

if TYPE_CHECKING:
    from intellagent.chatbots.mcp_world import WorldServer


class DialogTask(TypedDict):
    """One event and trial, sent to the dialog node, played by the chatbot or by one of its mutants, dual or solo
    where the user has tools (`simulate.control`; `beside`: a solo dialog played beside a dual one)."""

    event: Event
    trial: int
    mutant: str | None
    control: Control | None
    beside: bool


class SimulateState(TypedDict):
    """The dialogs to play, and the ids of the dialogs recorded."""

    tasks: list[DialogTask]
    recorded: Annotated[list[str], operator.add]


@dataclass(frozen=True)
class SimulateDeps:
    """What every dialog of the stage shares (the graph's runtime context), fixed while it runs.

    Attributes:
        items: the dialogs, recorded in dialogs.jsonl as each ends.
        play: plays one dialog, wherever the run's executor runs it.
    """

    items: StageItems[Dialog]
    play: ItemWork


def dispatch(state: SimulateState) -> list[Send]:
    """One dialog per event and trial (run concurrently up to `workers`)."""
    return [Send("dialog", task) for task in state["tasks"]]


async def dialog(state: DialogTask, *, runtime: Runtime[SimulateDeps]) -> dict[str, list[str]]:
    """Play one trial of an event and record its dialog; a failure is recorded as a dialog with status `error`."""
    deps = runtime.context
    event, trial, mutant = state["event"], state["trial"], state["mutant"]

    def failed(reason: str) -> Dialog:
        return Dialog(id=task_id(state), event=event.id, trial=trial, mutant=mutant,
                      control=state["control"], status="error", reason=reason,
                      policies=event.policies, challenge=event.challenge, persona=event.persona, claim=event.claim)

    recorded = await deps.items.run(lambda: deps.play(state), failed=failed)
    return {"recorded": [recorded.id]}


@cache
def build_graph() -> CompiledStateGraph[SimulateState, SimulateDeps, SimulateState, SimulateState]:
    """The stage graph, compiled once."""
    graph = StateGraph(SimulateState, context_schema=SimulateDeps)
    graph.add_node("dialog", dialog, input_schema=DialogTask)
    graph.add_conditional_edges(START, dispatch, ["dialog"])
    graph.add_edge("dialog", END)
    return graph.compile()


@dataclass
class DialogWork:
    """Playing dialogs, as any executor runs them (see `intellagent.executors`): the chatbot under test, the
    mutants a calibrated run plays, the MCP server of the dialogs' worlds, and the rules and compiled assertions
    that check every dialog, set up once per process."""

    ctx: RunContext
    chatbot: Chatbot
    mutants: dict[str, Chatbot]
    world_server: WorldServer | None
    compiled: list[Check[Trace]]
    shared_files: ClassVar[tuple[str, ...]] = (RunFolder.policies.name,)

    @classmethod
    @asynccontextmanager
    async def open(cls, ctx: RunContext, given: dict[str, Chatbot]) -> AsyncIterator[DialogWork]:
        """The work of the stage; `given` is the mutants' chatbots, by name."""
        chatbot = select_chatbot(ctx)  # a bad target fails here, before any LLM call
        compiled = checks_in_force(ctx)
        async with served_world(ctx, [chatbot, *given.values()]) as world_server:
            yield cls(ctx=ctx, chatbot=chatbot, mutants=given, world_server=world_server, compiled=compiled)

    async def do(self, task: DialogTask) -> Dialog:
        """One trial of an event, played by the chatbot or by one of its mutants, on the dialog graph."""
        event, trial, mutant = task["event"], task["trial"], task["mutant"]
        return await played_dialog(self.ctx, self.mutants[mutant] if mutant else self.chatbot, event,
                                   play=run_dialog, user_role=user_role, grader=grader(event, self.ctx.folder),
                                   played_id=task_id(task), trial=trial, mutant=mutant,
                                   world_server=self.world_server, compiled=self.compiled, control=task["control"])

    @staticmethod
    def reads(folder: RunFolder, task: DialogTask) -> list[str]:
        """The files of the event's world, and the world its expected calls leave."""
        event = task["event"]
        files = [folder.relative(path) for path in worlds.files(folder.path(event.database))] if event.database else []
        return files + ([event.expected.world] if event.expected and event.expected.world else [])

    @staticmethod
    def writes(folder: RunFolder, task: DialogTask) -> list[str]:
        """The dialog's stored world."""
        return [RunFolder.dialog_worlds.stored(task_id(task))]


def dialog_id(event_id: str, trial: int, mutant: str | None) -> str:
    """The id of a trial of an event, or of a mutant's dialog on it."""
    return mutant_dialog_id(event_id, mutant) if mutant else trial_id(event_id, trial)


def task_id(task: DialogTask) -> str:
    """The id of the dialog a task plays."""
    return solo_id(dialog_id(task["event"].id, task["trial"], task["mutant"]), beside=task["beside"])


async def run(ctx: RunContext) -> list[Dialog]:
    """Play every valid event's dialogs (one per trial, or as many as `--trials auto` finds the noise asks for)
    that are not recorded yet, and the calibration's mutants; return every dialog of the run."""
    events = [event for event in ctx.folder.events.require() if event.status == "ok"]
    artifact = ctx.folder.dialogs
    done = artifact.finished()
    rounds = TrialRounds.of(ctx, events)
    ways = played_controls(ctx.config, ctx.environment)
    todo = chatbot_tasks(rounds, done, ways)
    mutants = await calibration_mutants(ctx, events)
    limit = ctx.config.calibrate.events_per_mutant
    todo += [DialogTask(event=event, trial=1, mutant=m.record.name, control=ways[0], beside=False)
             for m in mutants if m.chatbot is not None for event in mutant_events(m.record, events, limit)
             if mutant_dialog_id(event.id, m.record.name) not in done]
    playing = {m.record.name: m.chatbot for m in mutants if m.chatbot is not None}
    async with AsyncExitStack() as stack:
        items: StageItems[Dialog] | None = None
        play: ItemWork | None = None
        while True:
            if todo:
                if play is None or items is None:  # opened at the first dialog to play: a resumed run may have none
                    items = StageItems(ctx, stage="simulate", artifact=artifact, total=len(todo), done=len(done))
                    play = await stack.enter_async_context(ctx.executor.stage(ctx, DialogWork, playing))
                else:
                    items.expect(items.total + len(todo))
                await build_graph().ainvoke(
                    SimulateState(tasks=todo, recorded=[]),
                    {"max_concurrency": ctx.config.workers, "run_name": "simulate"},
                    context=SimulateDeps(items=items, play=play),
                )
            recorded = artifact.load()
            if not rounds.grow(recorded):
                break
            # A dialog that failed in this invocation is not played again by the next round: as in a run of fixed
            # trials, a resumed run tries it again.
            todo = chatbot_tasks(rounds, {dialog.id: dialog for dialog in recorded}, ways)
    return artifact.finalize()


def chatbot_tasks(rounds: TrialRounds, done: Mapping[str, Dialog], ways: list[Control | None]) -> list[DialogTask]:
    """The chatbot's dialogs of the trial plan, played each of the `ways` (the run's own first), that are not
    recorded in `done`."""
    tasks = [DialogTask(event=event, trial=trial, mutant=None, control=control, beside=way > 0)
             for event, trial in rounds.missing({}) for way, control in enumerate(ways)]
    return [task for task in tasks if task_id(task) not in done]
