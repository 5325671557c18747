"""An attack through the conversation: the attacker searches for the message that breaks the rule, and rolls a
refused one back.

The opening is the chatbot's greeting and the attacker's first message (attempt 0). From the branch kept, each
attempt plays one chatbot turn and the attacker's next message, by the dialog player (`simulate.player`), as the
rollouts' branches are played: on its own copy of the branch's world, the chatbot's conversation forked from the
branch's, its world stored as a delta, the checks run and the grade taken. After each attempt the programs rule
on the rule under attack (`redteam.verdict`); a breach ends the attack. Otherwise the attacker's reading of the
reply decides: a reply that refused its message rolls that message back, and the attacker's new message is tried
in its place, from the same kept branch, so the chatbot never sees the refused message nor its refusal (the
attacker keeps both in view, marked); a reply that went along keeps the new branch. The attack ends with a breach,
when a branch reaches `red_team.max_turns` user turns or ends otherwise, or after `red_team.max_attempts`
attempts.

A chatbot whose conversations cannot fork (a Python callable, an HTTP endpoint) cannot be rolled back: its attack
is played straight, one dialog of `max_turns` user turns in which every refused message stays.

Each attempt's requests carry the seed of its own dialog id, drawn from the attack's and the attempt's number, so a
rerun asks the cache the very same requests: what an interrupted attack already paid for is answered without a new
call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from intellagent.artifacts import AttackAttempt, AttackTree, Dialog, Event, Message, Violation
from intellagent.chatbots import Chatbot, SamplingChatbot
from intellagent.llm import Usage
from intellagent.prompt_files import prompt_text
from intellagent.redteam.attacker import refused
from intellagent.simulate.control import Way
from intellagent.simulate.player import Casting, DialogPlayer, Played

Verdict = Callable[[Dialog], list[Violation]]
"""The programs' violations of the rule under attack in a dialog (`redteam.verdict.program_breach`)."""


@dataclass(frozen=True)
class AttackSettings:
    """How long an attack may go on (`red_team` in the config).

    Attributes:
        max_turns: user turns a branch may take.
        max_attempts: chatbot turns an attack through the conversation may play, rolled-back ones included.
        plantings: dialogs an attack through the data may play.
    """

    max_turns: int
    max_attempts: int
    plantings: int


@dataclass(frozen=True)
class AttackParts:
    """What one attack plays with, whichever way it goes.

    Attributes:
        chatbot: the chatbot under test.
        player: plays each dialog of the attack.
        settings: how long it may go on.
        usage: the attack's share of the run's accounting, within its rule's budget.
        way: the run's own way of playing where the user has tools (`simulate.control`).
        verdict: the programs' violations of the rule under attack in a dialog.
    """

    chatbot: Chatbot
    player: DialogPlayer
    settings: AttackSettings
    usage: Usage
    way: Way
    verdict: Verdict

    def casting(self, attack: str, attempt: str) -> Casting:
        """What an attempt of `attack` is played as."""
        return Casting.for_attack(attack, attempt, self.way)

    def tree(self, attack: str, event: Event) -> AttackTree:
        """The empty tree of `attack` on `event`, its brief on it."""
        brief = event.attack
        assert brief is not None  # an attack's event carries its brief
        return AttackTree(attack=attack, rule=brief.rule, strategy=brief.strategy, event=event.id)


@dataclass
class ConversationAttack:
    """One attack through the conversation.

    Attributes:
        attack: the attack's id.
        event: the attack's event, its brief on it.
        parts: what it plays with.
    """

    attack: str
    event: Event
    parts: AttackParts

    def __post_init__(self) -> None:
        self.tree = self.parts.tree(self.attack, self.event)
        folder = self.parts.player.ctx.folder
        self.worlds = folder.path(self.parts.casting(self.attack, "0").stored_world).parent

    @property
    def way_played(self) -> Literal["backtracking", "straight"]:
        """Backtracking, or straight when the chatbot's conversations cannot fork."""
        return "backtracking" if isinstance(self.parts.chatbot, SamplingChatbot) else "straight"

    async def run(self) -> AttackTree:
        """Play the attack to its end (see the module), and return its tree (kept in `self.tree` as it grows, so that
        an attack stopped by the budget still shows what it played)."""
        try:
            if self.way_played == "backtracking":
                await self._backtracking()
            else:
                await self._straight()
        finally:
            for leftover in self.worlds.glob("*.sqlite"):
                leftover.unlink(missing_ok=True)
        return self.tree

    async def _backtracking(self) -> None:
        kept, kept_id = await self._attempt("0", self.parts.chatbot, parent=None), "0"
        played, number = kept, 0
        while not played.ended and number < self.parts.settings.max_attempts:
            number += 1
            played = await self._attempt(str(number), kept, parent=kept_id)
            attempt = self.tree.attempts[-1]
            if attempt.breach or played.ended:
                break
            if attempt.refused:
                kept = rolled_back(kept, played)
                played.drop_world()
            else:
                kept.drop_world()
                kept, kept_id = played, attempt.id
        self.tree.dialog = played.dialog

    async def _straight(self) -> None:
        parts = self.parts
        played = await parts.player.play(self.event, parts.casting(self.attack, "1"), parts.chatbot,
                                         max_turns=parts.settings.max_turns, usage=parts.usage)
        self.tree.attempts.append(self._recorded("1", None, [], played))
        self.tree.dialog = played.dialog

    async def _attempt(self, attempt_id: str, start: Chatbot | Played, *, parent: str | None) -> Played:
        """One chatbot turn and the attacker's next message from `start` (the opening: the chatbot itself), recorded
        in the tree."""
        parts = self.parts
        played = await parts.player.play(self.event, parts.casting(self.attack, attempt_id), start, one_turn=True,
                                         max_turns=parts.settings.max_turns, usage=parts.usage)
        before = start.state["transcript"] if isinstance(start, Played) else []
        self.tree.attempts.append(self._recorded(attempt_id, parent, before, played))
        return played

    def _recorded(self, attempt_id: str, parent: str | None, before: list[Message], played: Played) -> AttackAttempt:
        """The tree's record of an attempt."""
        added: list[Message] = played.state["transcript"][len(before):]
        outcome = played.state["outcome"]
        return AttackAttempt(
            id=attempt_id,
            parent=parent,
            turn=sum(message.role == "user" for message in before),
            messages=added,
            refused=parent is not None and bool(added) and refused(added[-1]),
            breach=self.parts.verdict(played.dialog),
            ended=outcome.status if outcome else None,
            reason=outcome.reason if outcome else "",
            world=played.dialog.database,
        )


def rolled_back(kept: Played, played: Played) -> Played:
    """The kept branch with its last message, which the chatbot refused in `played`, replaced by the attacker's next
    one: the chatbot's conversation and world are the kept branch's, and the attacker's view keeps the refused
    message and its refusal, marked rolled back."""
    retry: Message = played.state["transcript"][-1]
    view: list[str] = played.state["user_view"]
    state = {**kept.state, "transcript": [*kept.state["transcript"][:-1], retry],
             "user_view": [*view[:-1], prompt_text("redteam/attacker_rolled_back"), view[-1]]}
    return replace(kept, state=state)
