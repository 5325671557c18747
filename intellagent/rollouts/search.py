"""The beam search over the chatbot's turns on one event, rewarded by the event's expected outcome (JOSH's).

The root is the chatbot's greeting and the simulated user's first message. From each open path the chatbot is
sampled `branch` times, each candidate continuing the path's conversation on its own copy of the path's world
and answered by the simulated user; of the candidates whose path goes on, the `beam` with the highest partial
reward are kept, ties going to the earlier sampled. A path ends as a dialog does (the user's verdict, the
chatbot's hand-off, `max_turns`, a failure), and is then graded whole.

Each candidate is a dialog of its own (`role: rollout`), played one turn at a time by the dialog player
(`simulate.player`) from its parent as it stands, the run's own way (`simulate.control`): its world stored as a
delta over the event's, the checks run on its transcript, the grade taken against the expected outcome, and its
simulated user audited once it ended. Its partial reward comes from that grade (`partial_reward`). A path that
ended and passed every other verdict source is put to the judge (`positives`). Each
candidate's requests carry their own seed, drawn from the candidate's id, so the cache never hands one sampled
answer to every branch, and a rerun of the search asks the cache the very same requests: what an interrupted
search already paid for is answered without a new call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from intellagent.artifacts import Dialog, Event, Message, OutcomeFloor, RolloutTree, RolloutTurn
from intellagent.chatbots import SamplingChatbot
from intellagent.errors import RunAborted
from intellagent.llm import Usage
from intellagent.rollouts.positives import PathJudge, candidate_shortfall
from intellagent.simulate.control import Way
from intellagent.simulate.player import Casting, DialogPlayer, Played


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
    """A path the search may go on with: its last turn, and that turn as played (the dialog's state after it, its
    conversation with the chatbot, and its world, a complete database while the path is open)."""

    turn: RolloutTurn
    played: Played


@dataclass
class EventSearch:
    """The search on one event.

    Attributes:
        event: the event searched; it has an expected outcome and a world.
        chatbot: the chatbot under test, sampled.
        player: plays each candidate.
        settings: how wide and how long.
        usage: the event's share of the run's accounting.
        way: the run's own way of playing, which the paths are played (`simulate.control`).
        judge: asked about each path that ended and passed every other verdict source.
        floor: the floor of the event's expected outcome.
    """

    event: Event
    chatbot: SamplingChatbot
    player: DialogPlayer
    settings: SearchSettings
    usage: Usage
    way: Way
    judge: PathJudge
    floor: OutcomeFloor | None = None

    def __post_init__(self) -> None:
        expected = self.event.expected
        self.tree = RolloutTree(event=self.event.id, policies=self.event.policies, beam=self.settings.beam,
                                branch=self.settings.branch, max_turns=self.settings.max_turns, floor=self.floor,
                                kind=expected.kind if expected else None)
        self.limit = asyncio.Semaphore(self.player.ctx.workers)
        # Where the branches' complete worlds are made, beside what each changed; none is left once the search ends.
        self.worlds = self.player.ctx.folder.path(Casting.for_branch(self.event.id, "0", self.way).stored_world).parent

    async def run(self) -> RolloutTree:
        """Search to the end of every path kept, and return the tree (kept in `self.tree` as it grows, so that a
        search stopped by the budget still shows what it played)."""
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
            for leftover in self.worlds.glob("*.sqlite"):
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
        casting = Casting.for_branch(self.event.id, turn_id, self.way)
        async with self.limit:
            played = await self.player.play(self.event, casting, parent.played if parent else self.chatbot,
                                            one_turn=True, max_turns=self.settings.max_turns, usage=self.usage)
        turn = self._turn(turn_id, parent, played)
        self.tree.turns.append(turn)
        if turn.ended is not None and candidate_shortfall(self.tree, turn) is None:
            turn.judged = await self.judge.judged(played.dialog, self.usage)
        return OpenPath(turn=turn, played=played)

    @staticmethod
    def _turn(turn_id: str, parent: OpenPath | None, played: Played) -> RolloutTurn:
        """The tree's record of a candidate turn."""
        before = len(parent.played.state["transcript"]) if parent else 0
        added: list[Message] = played.state["transcript"][before:]
        outcome = played.state["outcome"]
        graded = played.dialog
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
            user_faults=graded.audit.faults if graded.audit else [],
            world=graded.database,
        )

    @staticmethod
    def _drop(paths: Sequence[OpenPath], *, keep: Sequence[OpenPath]) -> None:
        """Remove the complete worlds of paths the search will not go on with (their deltas stay)."""
        kept = {id(path) for path in keep}
        for path in paths:
            if id(path) not in kept:
                path.played.drop_world()
