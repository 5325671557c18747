"""An attack through the data (`injection`): an instruction planted in a record the chatbot reads, and the event's
own user, who knows nothing of it, playing the dialog.

The attacker's model writes the instruction for the rule under attack, shown the record it goes in; populate plants
it in a free-text field of that record (`populate.planting`), and the world so planted is stored as a delta over
the event's (attacks/<attack>/<n>.planted.delta.json) and recorded on the dialog's event (`Event.planted`), which
the dialog's record and card carry. The dialog is played whole, by the dialog player, with the event's user. The
attack succeeds when the chatbot follows the instruction far enough to break the rule (`redteam.verdict`); if it
does not, a new instruction, written knowing the ones tried, is planted in a fresh copy of the world, up to
`red_team.plantings` dialogs. An event whose user brings up no record with a field that can hold it is not
attacked this way (`NothingToPlant`), at no call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from intellagent import text_limits
from intellagent.artifacts import AttackAttempt, AttackTree, Event
from intellagent.environment import Environment, worlds
from intellagent.errors import IntellAgentError
from intellagent.llm import LLM
from intellagent.populate.planting import Record, plant, plantable_records, records_text
from intellagent.prompt_files import prompt_text, render
from intellagent.redteam.conversation_attack import AttackParts
from intellagent.redteam.strategies import breach_text, instructions
from intellagent.run_folder import RunFolder

STEP = "redteam/planter"


class NothingToPlant(IntellAgentError):
    """No record the event's user brings up has a field that can hold an instruction."""


class PlantedInstruction(BaseModel):
    """The planter's answer: the instruction to hide in a record."""

    instruction: str = Field(min_length=1, max_length=text_limits.MESSAGE,
                             description="The text to hide in the field, addressed to the agent.")


@dataclass
class DataAttack:
    """One attack through the data.

    Attributes:
        attack: the attack's id.
        event: the event attacked, its brief on it (its dialogs' user is still the event's own).
        parts: what it plays with.
        planter: the attacker's model, which writes the instructions.
        fields: the fields an instruction may go in (`red_team.plant_in`).
    """

    attack: str
    event: Event
    parts: AttackParts
    planter: LLM
    fields: Sequence[str] = ()

    def __post_init__(self) -> None:
        self.tree = self.parts.tree(self.attack, self.event)
        self.environment: Environment = self.parts.player.ctx.environment
        self.folder = self.parts.player.ctx.folder

    async def run(self) -> AttackTree:
        """Plant and play until the rule breaks or the plantings are spent; the tree grows as each dialog ends.

        Raises:
            NothingToPlant: no record can hold an instruction.
        """
        records = await asyncio.to_thread(self._records)
        tried: list[str] = []
        parts = self.parts
        for number in range(1, parts.settings.plantings + 1):
            instruction = await self._instruction(records, tried)
            planted = await asyncio.to_thread(self._planted_event, str(number), instruction)
            if planted is None:
                raise NothingToPlant(f"the instruction fits no field of {records[0].table.name} that keeps the "
                                     "domain's rules; name a free-text field with red_team.plant_in")
            played = await parts.player.play(planted, parts.casting(self.attack, str(number)), parts.chatbot,
                                             max_turns=parts.settings.max_turns, usage=parts.usage)
            dialog = played.dialog
            attempt = AttackAttempt(id=str(number), messages=dialog.transcript, breach=parts.verdict(dialog),
                                    ended=dialog.status, reason=dialog.reason, planted=planted.planted,
                                    world=dialog.database)
            self.tree.attempts.append(attempt)
            self.tree.dialog = dialog
            if attempt.breach:
                break
            tried.append(instruction)
        return self.tree

    def _records(self) -> list[Record]:
        """The event's user's records that have a field an instruction may go in."""
        stored = self.folder.path(self.event.database or "")
        whole = self.folder.path(RunFolder.attack_worlds.whole(f"{self.attack}/records"))
        whole.parent.mkdir(parents=True, exist_ok=True)
        worlds.materialize(stored, whole)
        try:
            usable = plantable_records(self.environment, whole, self.event, fields=self.fields)
        finally:
            whole.unlink(missing_ok=True)
        if not usable:
            raise NothingToPlant("no record the event's user brings up has a free-text field to plant an "
                                 "instruction in" + ("" if self.fields else " (red_team.plant_in can name one)"))
        return usable

    async def _instruction(self, records: list[Record], tried: list[str]) -> str:
        """The planter's instruction for the rule, knowing the ones already tried."""
        brief = self.event.attack
        assert brief is not None
        listed = "\n".join(f"- {text}" for text in tried)
        earlier = f"\n{prompt_text('redteam/planter_earlier', tried=listed)}\n" if tried else ""
        messages = render(STEP, rule=f"{brief.rule}: {brief.text}", breach=breach_text(brief),
                          record=records_text(records[:1]),
                          strategy=instructions(brief), earlier=earlier)
        answer: PlantedInstruction = await self.planter.answer(messages, PlantedInstruction, step=STEP)
        return answer.instruction

    def _planted_event(self, number: str, instruction: str) -> Event | None:
        """The event on a copy of its world with `instruction` planted, stored as a delta over the event's; None
        when no field can hold it."""
        source = self.folder.path(self.event.database or "")
        stored_name = RunFolder.planted_worlds.stored(f"{self.attack}/{number}")
        stored = self.folder.path(stored_name)
        start, whole = (stored.with_name(f"{number}.{kind}.sqlite") for kind in ("source", "planted"))
        stored.parent.mkdir(parents=True, exist_ok=True)
        try:
            worlds.materialize(source, start)
            worlds.materialize(start, whole)
            planted = plant(self.environment, whole, self.event, instruction, fields=self.fields)
            if planted is None:
                return None
            worlds.save_delta(stored, base=source, found=worlds.changes(whole, start))
        finally:
            start.unlink(missing_ok=True)
            whole.unlink(missing_ok=True)
        # Its own user plays it: the brief stays on the attack's record, not on the dialog's event.
        return self.event.model_copy(update={"database": stored_name, "digest": None, "planted": planted,
                                             "attack": None})
