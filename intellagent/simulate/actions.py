"""What a simulated user does on its own side of the world in one turn (dual control), before its message.

The user's role answers each step with a call of one of its own tools or with its turn; each call runs on
the dialog's world (`DialogWorld.act`: validated, time-limited, one at a time with the chatbot's), the
user reads what it showed, and the calls are recorded on the user's message, or on a message of their
own when the turn sends the chatbot nothing (a stop, a user that gave up): they changed the world.
"""

from __future__ import annotations

from intellagent.artifacts import Message, ToolCall
from intellagent.simulate.setting import DialogDeps
from intellagent.simulate.transcript import action_line, numbered
from intellagent.simulate.turns import TaskUserTurn, UserTurn
from intellagent.simulate.users import Update, UserToolStep


class UserActions:
    """The calls a simulated user makes on its own side in one turn, before its message (at most
    `max_tool_steps`): each runs on the dialog's world, and the user reads what it showed."""

    def __init__(self, deps: DialogDeps) -> None:
        self.deps = deps
        self.calls: list[ToolCall] = []
        self.lines: list[str] = []

    async def turn(self, view: list[str], *, ending: bool, warmer: bool, opening: bool) -> UserTurn | TaskUserTurn:
        """The user's turn, after the calls it chose to make first (`opening`: its first turn)."""
        world = self.deps.world
        while True:
            may_act = world is not None and len(self.calls) < self.deps.max_tool_steps
            step = await self.deps.user.answer([*view, *self.lines], ending=ending, warmer=warmer, may_act=may_act,
                                               opening=opening)
            if not isinstance(step, UserToolStep):
                return step
            assert world is not None  # a step is asked for only with a world to act on
            call = await world.act(step.tool, step.arguments)
            self.calls.append(call)
            self.lines.append(action_line(call))

    def numbered(self, transcript: list[Message]) -> list[ToolCall]:
        """The turn's calls, numbered on from the dialog's earlier ones."""
        return numbered(self.calls, after=sum(len(message.tool_calls) for message in transcript))

    def kept(self, update: Update, transcript: list[Message]) -> Update:
        """`update`, with the turn's calls in the transcript when it sends no message: they changed the world."""
        if self.calls:
            turn = Message(role="user", content="", tool_calls=self.numbered(transcript), at_s=self.deps.clock())
            update = {**update, "transcript": [turn], "user_view": self.lines}
        return update
