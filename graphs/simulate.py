"""The simulate stage: one dialog per valid event and trial, run side by side, each on its own copy of
the event's world, appended to dialogs.jsonl as it finishes with what it changed in that world.

    START ──dispatch (Send per event and trial still to do)──→ dialog ──→ END

Each dialog is played by the run's executor (`DialogWork`: in this process, or in a Ray worker, see
`intellagent.executors`) with the dialog player (`simulate.player`: its world, the dialog graph
`graphs.dialog`, its checks, grade and audit), as what its task casts it as; this process records it.
A calibrated run (`calibrate`) also plays the chatbot's mutants (see `simulate.mutant_chatbots`), each on a
few events whose scenario samples the rule it breaks; their dialogs are in dialogs.jsonl too, with
`role: mutant` and the mutant's name, and mutants.json says how each was made.
Where the user has tools of its own, `simulate.dual_control` says whether a dialog is played dual, solo
or both ways (`simulate.control`; a solo dialog beside a dual one has `role: solo`).
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
from typing import Annotated, ClassVar, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from intellagent.artifacts import Dialog, Event
from intellagent.chatbots import Chatbot, select_chatbot
from intellagent.context import ItemWork, RunContext
from intellagent.environment import worlds
from intellagent.modes import grader, user_role
from intellagent.run_folder import RunFolder
from intellagent.simulate.control import Way, played_ways
from intellagent.simulate.mutant_chatbots import calibration_mutants, mutant_events
from intellagent.simulate.player import Casting, DialogPlayer
from intellagent.simulate.trial_plan import TrialRounds
from intellagent.stage import StageItems

from .dialog import play_dialog


class DialogTask(TypedDict):
    """One dialog to play, sent to the dialog node: the event, and what the dialog is played as (the chatbot's
    trial, dual or solo where the user has tools, or a mutant's)."""

    event: Event
    casting: Casting


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
    recorded = await deps.items.run(lambda: deps.play(state),
                                    failed=lambda reason: state["casting"].unplayed(state["event"], reason))
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
    mutants a calibrated run plays, and the dialog player, set up once per process."""

    chatbot: Chatbot
    mutants: dict[str, Chatbot]
    player: DialogPlayer
    shared_files: ClassVar[tuple[str, ...]] = (RunFolder.policies.name,)

    @classmethod
    @asynccontextmanager
    async def open(cls, ctx: RunContext, given: dict[str, Chatbot]) -> AsyncIterator[DialogWork]:
        """The work of the stage; `given` is the mutants' chatbots, by name."""
        chatbot = select_chatbot(ctx)  # a bad target fails here, before any LLM call
        async with DialogPlayer.open(ctx, [chatbot, *given.values()], play=play_dialog, user_role=user_role,
                                     grader=grader) as player:
            yield cls(chatbot=chatbot, mutants=given, player=player)

    async def do(self, task: DialogTask) -> Dialog:
        """One dialog, played by the chatbot or by one of its mutants."""
        casting = task["casting"]
        chatbot = self.mutants[casting.mutant] if casting.mutant else self.chatbot
        played = await self.player.play(task["event"], casting, chatbot)
        return played.dialog

    @staticmethod
    def reads(folder: RunFolder, task: DialogTask) -> list[str]:
        """The files of the event's world, and the world its expected calls leave."""
        event = task["event"]
        files = [folder.relative(path) for path in worlds.files(folder.path(event.database))] if event.database else []
        return files + ([event.expected.world] if event.expected and event.expected.world else [])

    @staticmethod
    def writes(folder: RunFolder, task: DialogTask) -> list[str]:
        """The dialog's stored world."""
        return [task["casting"].stored_world]


async def run(ctx: RunContext) -> list[Dialog]:
    """Play every valid event's dialogs (one per trial, or as many as `--trials auto` finds the noise asks for)
    that are not recorded yet, and the calibration's mutants; return every dialog of the run."""
    events = [event for event in ctx.folder.events.require() if event.status == "ok"]
    artifact = ctx.folder.dialogs
    done = artifact.finished()
    rounds = TrialRounds.of(ctx, events)
    ways = played_ways(ctx.config, ctx.environment)
    todo = chatbot_tasks(rounds, done, ways)
    mutants = await calibration_mutants(ctx, events)
    limit = ctx.config.calibrate.events_per_mutant
    mutant_tasks = [DialogTask(event=event, casting=Casting.for_mutant(event.id, m.record.name, ways[0]))
                    for m in mutants if m.chatbot is not None for event in mutant_events(m.record, events, limit)]
    todo += [task for task in mutant_tasks if task["casting"].id not in done]
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
                    {"max_concurrency": ctx.workers, "run_name": "simulate"},
                    context=SimulateDeps(items=items, play=play),
                )
            recorded = artifact.load()
            if not rounds.grow(recorded):
                break
            # A dialog that failed in this invocation is not played again by the next round: as in a run of fixed
            # trials, a resumed run tries it again.
            todo = chatbot_tasks(rounds, {dialog.id: dialog for dialog in recorded}, ways)
    return artifact.finalize()


def chatbot_tasks(rounds: TrialRounds, done: Mapping[str, Dialog], ways: list[Way]) -> list[DialogTask]:
    """The chatbot's dialogs of the trial plan, played each of the `ways` (the run's own first), that are not
    recorded in `done`."""
    tasks = [DialogTask(event=event, casting=Casting.for_trial(event.id, trial, way))
             for event, trial in rounds.missing({}) for way in ways]
    return [task for task in tasks if task["casting"].id not in done]
