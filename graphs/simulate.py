"""The simulate stage: one dialog per valid event and trial, run side by side, each on its own copy of
the event's world, appended to dialogs.jsonl as it finishes with what it changed in that world.

    START ──dispatch (Send per event and trial still to do)──→ dialog ──→ END

A calibrated run (`calibrate`) also plays the chatbot's mutants (see `simulate.mutants`), each on a
few events whose scenario samples the rule it breaks; their dialogs are in dialogs.jsonl too, marked
with the mutant's name, and mutants.json says how each was made.
A resumed run reads dialogs.jsonl first and plays only the dialogs not recorded yet, or recorded as
`error` (an outage, a chatbot that crashed: worth another try once the cause is gone).
Each dialog is played by the run's executor (`DialogWork`: in this process, or in a Ray worker, see
`intellagent.executors`); this process records it.
"""

from __future__ import annotations

import asyncio
import filecmp
import operator
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Annotated, ClassVar, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from intellagent.artifacts import Dialog, Event
from intellagent.chatbots import Chatbot, ChatbotSession, DialogWorld, select_chatbot
from intellagent.checks import run_checks
from intellagent.context import RunContext, log
from intellagent.environment import Environment, worlds
from intellagent.llm import Usage
from intellagent.run_folder import RunFolder
from intellagent.simulate.accounting import counted
from intellagent.simulate.databases import DialogFiles, stored_name
from intellagent.simulate.mutants import PlayableMutant, mutant_dialog_id, mutant_events, prepare_mutants
from intellagent.simulate.published import graded
from intellagent.simulate.seeds import dialog_model
from intellagent.simulate.trials import trial_id, trial_user
from intellagent.stage import StageItems

from .dialog import DialogDeps, run_dialog

if TYPE_CHECKING:
    from intellagent.chatbots.mcp_world import WorldServer

class DialogTask(TypedDict):
    """One event and trial, sent to the dialog node, played by the chatbot or by one of its mutants."""

    event: Event
    trial: int
    mutant: str | None


class SimulateState(TypedDict):
    """The dialogs to play, and the ids of the dialogs recorded."""

    tasks: list[DialogTask]
    recorded: Annotated[list[str], operator.add]


@dataclass
class SimulateDeps:
    """What every dialog of the stage shares (the graph's runtime context)."""

    items: StageItems[Dialog]
    play: Callable[[DialogTask], Awaitable[Dialog]]


def dispatch(state: SimulateState) -> list[Send]:
    """One dialog per event and trial (run concurrently up to `workers`)."""
    return [Send("dialog", task) for task in state["tasks"]]


async def dialog(state: DialogTask, *, runtime: Runtime[SimulateDeps]) -> dict[str, list[str]]:
    """Play one trial of an event and record its dialog; a failure is recorded as a dialog with status `error`."""
    deps = runtime.context
    event, trial, mutant = state["event"], state["trial"], state["mutant"]

    def failed(reason: str) -> Dialog:
        return Dialog(id=dialog_id(event.id, trial, mutant), event=event.id, trial=trial, mutant=mutant,
                      status="error", reason=reason, policies=event.policies, challenge=event.challenge)

    recorded = await deps.items.run(lambda: deps.play(state), failed=failed)
    return {"recorded": [recorded.id]}


@dataclass
class DialogWork:
    """Playing dialogs, as any executor runs them (see `intellagent.executors`): the chatbot under test, the
    mutants a calibrated run plays, and the MCP server of the dialogs' worlds, set up once per process."""

    ctx: RunContext
    chatbot: Chatbot
    mutants: dict[str, Chatbot]
    world_server: WorldServer | None
    shared_files: ClassVar[tuple[str, ...]] = ()

    @classmethod
    @asynccontextmanager
    async def open(cls, ctx: RunContext, given: dict[str, Chatbot]) -> AsyncIterator[DialogWork]:
        """The work of the stage; `given` is the mutants' chatbots, by name."""
        chatbot = select_chatbot(ctx)  # a bad target fails here, before any LLM call
        async with served_world(ctx, [chatbot, *given.values()]) as world_server:
            yield cls(ctx=ctx, chatbot=chatbot, mutants=given, world_server=world_server)

    async def do(self, task: DialogTask) -> Dialog:
        """One trial of an event, played by the chatbot or by one of its mutants."""
        mutant = task["mutant"]
        chatbot = self.mutants[mutant] if mutant else self.chatbot
        return await simulate_event(self.ctx, chatbot, task["event"], trial=task["trial"], mutant=mutant,
                                    world_server=self.world_server)

    @staticmethod
    def reads(folder: RunFolder, task: DialogTask) -> list[str]:
        """The files of the event's world."""
        database = task["event"].database
        return [] if database is None else [folder.relative(path) for path in worlds.files(folder.path(database))]

    @staticmethod
    def writes(folder: RunFolder, task: DialogTask) -> list[str]:
        """The dialog's stored world."""
        return [stored_name(dialog_id(task["event"].id, task["trial"], task["mutant"]))]


def dialog_id(event_id: str, trial: int, mutant: str | None) -> str:
    """The id of a trial of an event, or of a mutant's dialog on it."""
    return mutant_dialog_id(event_id, mutant) if mutant else trial_id(event_id, trial)


async def simulate_event(
    ctx: RunContext,
    chatbot: Chatbot,
    event: Event,
    *,
    trial: int = 1,
    mutant: str | None = None,
    world_server: WorldServer | None = None,
) -> Dialog:
    """Make the event's world whole for the dialog, play the dialog on it, store what the dialog changed with
    the world's digest, and run the deterministic checks on what happened; a τ-bench task's dialog is graded
    by its gold actions.

    Args:
        trial: which trial of the event this dialog is (1 unless `simulate.trials` asks for more).
        mutant: the name of the mutant `chatbot` is, in a calibrated run.
        world_server: the run's MCP server, which serves the dialog's world to an endpoint chatbot.
    """
    played_id = dialog_id(event.id, trial, mutant)
    files = DialogFiles.of(ctx, event, played_id) if event.database is not None else None
    usage = Usage(parent=ctx.usage)  # the dialog's share, counted in the run's totals too
    environment = ctx.environment
    path = files.played if files else None
    world = DialogWorld(environment, path, timeout=ctx.config.environment.tool_timeout) if path else None
    try:
        with ExitStack() as hosted:
            mcp_url = hosted.enter_context(world_server.hosting(played_id, world)) if world_server and world else None
            session = ChatbotSession(id=played_id, database=path, usage=usage, world=world, mcp_url=mcp_url)
            deps = DialogDeps(
                event=event,
                policy=environment.policy,
                conversation=chatbot.open(session),
                user=counted(dialog_model(trial_user(ctx.llms["user"], trials=ctx.config.simulate.trials),
                                          seed=ctx.config.seed, dialog_id=played_id), usage),
                critique=counted(dialog_model(ctx.llms["critique"], seed=ctx.config.seed, dialog_id=played_id), usage),
                greeting=ctx.config.chatbot.greeting,
                max_turns=ctx.config.simulate.max_turns,
                max_critiques=ctx.config.simulate.max_critiques,
                world=world,
                user_thoughts=user_thoughts(ctx),
                name=played_id,
            )
            played = await run_dialog(deps)
        # Reading a world back (its changes, the checks, a τ-bench grade) takes seconds on a large one: off
        # the loop, so that the other dialogs' conversations go on meanwhile.
        settled = await asyncio.to_thread(settle, environment, event, played, files)
    finally:
        if files:
            files.clear()
    return settled.model_copy(update={"id": played_id, "event": event.id, "trial": trial, "mutant": mutant,
                                      "usage": usage.report().roles,
                                      "database": files.name if files else None})


def settle(environment: Environment, event: Event, played: Dialog, files: DialogFiles | None) -> Dialog:
    """A played dialog with its world stored and digested, the deterministic checks' findings, and, for a
    τ-bench task, its grade."""
    if files is None:
        checks, findings = run_checks(environment, played.transcript, before=None, database=None)
        return played.model_copy(update={"checks": checks, "findings": findings})
    unchanged = filecmp.cmp(files.start, files.played, shallow=False)
    found = {} if unchanged else worlds.changes(files.played, files.start)
    worlds.save_delta(files.stored, base=files.event, found=found)
    if unchanged and event.digest is not None:
        digest = event.digest  # nothing was written: the event's world, whose digest is known
    else:
        digest = worlds.world_digest(files.played, files.event, found)
    checks, findings = run_checks(environment, played.transcript, before=files.start, database=files.played,
                                  written=list(found))
    played = played.model_copy(update={"digest": digest, "checks": checks, "findings": findings})
    if event.task is not None:
        played = graded(environment, event, played, initial=files.start, final=files.played)
    return played


def user_thoughts(ctx: RunContext) -> bool:
    """Whether the simulated user writes a private thought (`simulate.user_thoughts`; auto: not on the
    embedded model, whose every token is slow)."""
    setting = ctx.config.simulate.user_thoughts
    if setting == "auto":
        return ctx.llms.spec("user").provider != "local"
    return setting == "yes"


@cache
def build_graph() -> CompiledStateGraph[SimulateState, SimulateDeps, SimulateState, SimulateState]:
    """The stage graph, compiled once."""
    graph = StateGraph(SimulateState, context_schema=SimulateDeps)
    graph.add_node("dialog", dialog, input_schema=DialogTask)
    graph.add_conditional_edges(START, dispatch, ["dialog"])
    graph.add_edge("dialog", END)
    return graph.compile()


async def run(ctx: RunContext) -> list[Dialog]:
    """Play every valid event's dialogs (one per trial) that are not recorded yet; return every dialog of the
    run."""
    events = [event for event in ctx.folder.events.require() if event.status == "ok"]
    artifact = ctx.folder.dialogs
    done = artifact.finished()
    trials = range(1, ctx.config.simulate.trials + 1)
    todo = [DialogTask(event=event, trial=trial, mutant=None) for event in events for trial in trials
            if trial_id(event.id, trial) not in done]
    mutants = await calibration_mutants(ctx, events)
    limit = ctx.config.calibrate.events_per_mutant
    todo += [DialogTask(event=event, trial=1, mutant=m.record.name) for m in mutants if m.chatbot is not None
             for event in mutant_events(m.record, events, limit)
             if mutant_dialog_id(event.id, m.record.name) not in done]
    if todo:
        playing = {m.record.name: m.chatbot for m in mutants if m.chatbot is not None}
        items = StageItems(ctx, stage="simulate", artifact=artifact, total=len(todo), done=len(done))
        async with ctx.executor.stage(ctx, DialogWork, playing) as play:
            await build_graph().ainvoke(
                SimulateState(tasks=todo, recorded=[]), {"max_concurrency": ctx.config.workers, "run_name": "simulate"},
                context=SimulateDeps(items=items, play=play),
            )
    return artifact.finalize()


async def calibration_mutants(ctx: RunContext, events: list[Event]) -> list[PlayableMutant]:
    """The mutants a calibrated run plays (recorded in mutants.json); none when the run does not calibrate."""
    if not (ctx.config.calibrate.active or ctx.mutants):
        return []
    return await prepare_mutants(ctx, ctx.folder.policies.require(), events, ctx.mutants)


@asynccontextmanager
async def served_world(ctx: RunContext, chatbots: list[Chatbot]) -> AsyncIterator[WorldServer | None]:
    """The run's MCP server while the stage runs, if a chatbot is an endpoint that may reach the world by it."""
    if not any(getattr(chatbot, "reaches_world_over_mcp", False) for chatbot in chatbots):
        yield None
        return
    try:
        from intellagent.chatbots.mcp_world import WorldServer
    except ImportError:
        log.warning("the dialogs' worlds are not served to the chatbot: install the mcp extra "
                    "(pip install 'intellagent[mcp]') for an endpoint chatbot to use the domain's tools")
        yield None
        return
    async with WorldServer(ctx.environment).serving() as server:
        yield server
