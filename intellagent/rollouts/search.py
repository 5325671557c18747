"""The beam search over the chatbot's turns on one event, rewarded by the event's expected outcome (JOSH's).

The root is the chatbot's greeting and the simulated user's first message. From each open path the chatbot is
sampled `branch` times, each candidate continuing the path's conversation on its own copy of the path's world
(`ForkingConversation.fork`) and answered by the simulated user; of the candidates whose path goes on, the
`beam` with the highest partial reward are kept, ties going to the earlier sampled. A path ends as a dialog
does (the user's verdict, the chatbot's hand-off, `max_turns`, a failure), and is then graded whole.

A candidate is played on the dialog graph's own nodes, one turn at a time (`PlayTurn`), and settled as a
dialog is (`simulate.setting.settle`): its world stored as a delta over the event's, the checks run on its
transcript, the grade taken against the expected outcome. Its partial reward comes from that grade
(`partial_reward`). Each candidate's requests carry their own seed, drawn from the candidate's id, so the
cache never hands one sampled answer to every branch, and a rerun of the search asks the cache the very same
requests: what an interrupted search already paid for is answered without a new call.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intellagent.artifacts import Dialog, Event, Message, RolloutTree, RolloutTurn
from intellagent.chatbots import ChatbotSession, DialogWorld, ForkingConversation, SamplingChatbot
from intellagent.checks import Check
from intellagent.context import RunContext
from intellagent.environment import worlds
from intellagent.errors import RunAborted
from intellagent.llm import Usage
from intellagent.modes import grader, user_role
from intellagent.run_folder import RunFolder
from intellagent.simulate.audit import read_faults
from intellagent.simulate.databases import DialogFiles
from intellagent.simulate.grading import OutcomeGrader, UserVerdict
from intellagent.simulate.setting import DialogDeps, dialog_deps, settle

if TYPE_CHECKING:
    from intellagent.chatbots.mcp_world import WorldServer

TurnState = dict[str, Any]
"""The dialog graph's state (`graphs.dialog.DialogState`) between two chatbot turns."""

PlayTurn = Callable[[DialogDeps, TurnState | None], Awaitable[tuple[TurnState, Dialog]]]
"""Plays one chatbot turn and the user's answer from a state (None: the greeting, on a dialog not begun); returns
the state after it and the dialog it stands for (the dialog graph's `play_turn`)."""


def partial_reward(graded: Dialog) -> float:
    """A path's reward so far, by which the beam ranks it: the share of the expected calls its chatbot matched, or
    0 once it made a forbidden write or a check found something on it (1 while nothing is expected and nothing
    went wrong)."""
    grade = graded.grade
    if grade is None or grade.forbidden_made or graded.findings:
        return 0.0
    return grade.matched_calls / grade.expected_calls if grade.expected_calls else 1.0


@dataclass(frozen=True)
class SearchSettings:
    """How wide and how long the search is (`rollouts` in the config).

    Attributes:
        beam: open paths kept after each turn.
        branch: candidates sampled from each open path.
        max_turns: user turns after which a path ends.
    """

    beam: int
    branch: int
    max_turns: int


@dataclass
class OpenPath:
    """A path the search may go on with: its last turn, the dialog's state after it, its conversation with the
    chatbot, and its world (a complete database while the path is open)."""

    turn: RolloutTurn
    state: TurnState
    conversation: ForkingConversation
    database: Path


@dataclass
class EventSearch:
    """The search on one event.

    Attributes:
        ctx: the run.
        event: the event searched; it has an expected outcome and a world.
        chatbot: the chatbot under test, sampled.
        play: plays one turn (the dialog graph's `play_turn`).
        settings: how wide and how long.
        usage: the event's share of the run's accounting.
        compiled: the run's rules and compiled assertions, run with the domain's checks.
        world_server: the run's MCP server, for an endpoint chatbot that reaches the world by it.
    """

    ctx: RunContext
    event: Event
    chatbot: SamplingChatbot
    play: PlayTurn
    settings: SearchSettings
    usage: Usage
    compiled: Sequence[Check] = ()
    world_server: WorldServer | None = None

    def __post_init__(self) -> None:
        self.tree = RolloutTree(event=self.event.id, policies=self.event.policies, beam=self.settings.beam,
                                branch=self.settings.branch, max_turns=self.settings.max_turns)
        self.grader = grader(self.event, self.ctx.folder)
        # A path still open needs only its outcome grade for its partial reward; the status the mode grades by
        # (τ-bench's compares whole worlds, seconds on its database) is taken once, when the path ends.
        self.partial = OutcomeGrader(self.ctx.folder, UserVerdict())
        self.limit = asyncio.Semaphore(self.ctx.config.workers)
        assert self.event.database is not None
        self.source = self.ctx.folder.path(self.event.database)
        self.start = self.ctx.folder.path(RunFolder.rollout_worlds.whole(f"{self.event.id}/start"))

    async def run(self) -> RolloutTree:
        """Search to the end of every path kept, and return the tree (kept in `self.tree` as it grows, so that a
        search stopped by the budget still shows what it played)."""
        self.start.parent.mkdir(parents=True, exist_ok=True)
        worlds.materialize(self.source, self.start)
        try:
            root = await self._candidate(None, 0)
            frontier = [] if root.turn.ended else [root]
            root.turn.kept = bool(frontier)
            while frontier:
                candidates = await self._expand(frontier)
                going_on = sorted((c for c in candidates if c.turn.ended is None), key=lambda c: -c.turn.reward)
                frontier = going_on[: self.settings.beam]
                for path in frontier:
                    path.turn.kept = True
                self._drop(candidates, keep=frontier)
        finally:
            for leftover in self.start.parent.glob("*.sqlite"):
                leftover.unlink(missing_ok=True)
        return self.tree

    async def _expand(self, frontier: list[OpenPath]) -> list[OpenPath]:
        """Every open path's candidates; the parents' worlds are dropped once their candidates have copied them.

        A candidate that finished is kept in the tree even when another failed (the budget ran out, say): it
        was played and paid for."""
        tasks = [self._candidate(path, number) for path in frontier for number in range(1, self.settings.branch + 1)]
        results = await asyncio.gather(*tasks, return_exceptions=True)
        self._drop(frontier, keep=[])
        failures = [result for result in results if isinstance(result, BaseException)]
        if failures:
            raise next((failure for failure in failures if isinstance(failure, RunAborted)), failures[0])
        return [result for result in results if isinstance(result, OpenPath)]

    async def _candidate(self, parent: OpenPath | None, number: int) -> OpenPath:
        """One sampled chatbot turn after `parent` (the greeting, without one), on its own copy of the parent's
        world, settled and rewarded; added to the tree."""
        turn_id = f"{parent.turn.id}.{number}" if parent else str(number)
        stored_name = RunFolder.rollout_worlds.stored(f"{self.event.id}/{turn_id}")
        stored = self.ctx.folder.path(stored_name)
        database = worlds.whole_path(stored)
        async with self.limit:
            await asyncio.to_thread(worlds.materialize, parent.database if parent else self.start, database)
            world = DialogWorld(self.ctx.environment, database, timeout=self.ctx.config.environment.tool_timeout)
            session_id = f"{self.event.id}~r{turn_id}"
            with ExitStack() as hosted:
                mcp_url = (hosted.enter_context(self.world_server.hosting(session_id, world))
                           if self.world_server else None)
                session = ChatbotSession(id=session_id, database=database, usage=self.usage, world=world,
                                         mcp_url=mcp_url)
                conversation = parent.conversation.fork(session) if parent else self.chatbot.open(session)
                deps = dialog_deps(self.ctx, self.event, conversation, user_role=user_role, played_id=session_id,
                                   trial=1, usage=self.usage, world=world, environment=self.ctx.environment)
                deps = dataclasses.replace(deps, max_turns=self.settings.max_turns)
                state, played = await self.play(deps, parent.state if parent else None)
            files = DialogFiles(event=self.source, start=self.start, played=database, stored=stored, name=stored_name)
            graded = await asyncio.to_thread(settle, self.ctx.environment, self.event, played, files,
                                             self.grader if state["outcome"] else self.partial, self.compiled)
            ended = state["outcome"] is not None and state["outcome"].status != "error"
            faults = await asyncio.to_thread(read_faults, self.ctx.environment, self.event, graded,
                                             world=self.start) if ended else []
        turn = self._turn(turn_id, parent, state, graded, world=stored_name)
        turn.user_faults = faults
        self.tree.turns.append(turn)
        return OpenPath(turn=turn, state=state, conversation=conversation, database=database)

    def _turn(self, turn_id: str, parent: OpenPath | None, state: TurnState, graded: Dialog, *,
              world: str) -> RolloutTurn:
        """The tree's record of a candidate turn."""
        before = len(parent.state["transcript"]) if parent else 0
        added: list[Message] = state["transcript"][before:]
        outcome = state["outcome"]
        grade = graded.grade
        return RolloutTurn(
            id=turn_id,
            parent=parent.turn.id if parent else None,
            turn=parent.turn.turn + 1 if parent else 0,
            messages=added,
            reward=partial_reward(graded),
            matched_calls=grade.matched_calls if grade else 0,
            forbidden_made=grade.forbidden_made if grade else [],
            findings=[finding.message for finding in graded.findings],
            ended=outcome.status if outcome else None,
            reason=outcome.reason if outcome else "",
            grade=grade if outcome else None,
            world=world,
        )

    @staticmethod
    def _drop(paths: Sequence[OpenPath], *, keep: Sequence[OpenPath]) -> None:
        """Remove the complete worlds of paths the search will not go on with (their deltas stay)."""
        kept = {id(path) for path in keep}
        for path in paths:
            if id(path) not in kept:
                path.database.unlink(missing_ok=True)
