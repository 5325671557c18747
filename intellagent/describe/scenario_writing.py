"""Writing scenarios: the answers that turn a sampled policy set into a scenario and check it, and
which attempts of which slots are to be made now.

A slot's scenario keeps its id (S001 for slot 1) across attempts: a failed attempt is recorded under
it, and a later attempt's record replaces it, so scenarios.jsonl ends with one line per slot.

A repeated policy set is written after the scenarios planned before it for the same set (each either
written or given up), and its writer is shown them, to tell of another situation and goal; an answer
that repeats one of them word for word is sent back. The order depends only on the plan and the
answers, so a run writes the same scenarios whatever the number of workers.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from intellagent import text_limits
from intellagent.artifacts import Entitlement, Persona, Policy, Scenario
from intellagent.describe.sampling import Sample, Slot
from intellagent.errors import UsageError
from intellagent.prompt_files import prompt_text, render
from intellagent.run_folder import RunFolder

if TYPE_CHECKING:
    from intellagent.environment import Tool

# Earlier scenarios of a set shown to the writer of another one: the most recent, each cut to a few lines,
# so that the prompt stays short however many scenarios a set has.
EARLIER_SHOWN = 5
EARLIER_CHARACTERS = 400


ENTITLED_REQUEST = 300
"""Characters of the request a scenario's user is entitled to: one sentence."""


class ScenarioAnswer(BaseModel):
    """One conversation that tests a set of policies, and what the chatbot must do in it (a domain's own answer,
    `scenario_answer`, adds the change the user is entitled to)."""

    model_config = ConfigDict(extra="forbid")
    description: str = Field(min_length=20, max_length=text_limits.SCENARIO)
    expected_behaviour: str = Field(min_length=20, max_length=text_limits.SCENARIO)


@lru_cache(maxsize=8)
def scenario_answer(changes: tuple[str, ...]) -> type[ScenarioAnswer]:
    """The answer a scenario is written in, on a domain whose tools that change the world are `changes`: the user's
    situation, then the change among them it is entitled to (or null), then what the chatbot must do; made once
    per domain. A domain with no such tool gets `ScenarioAnswer` itself."""
    if not changes:
        return ScenarioAnswer
    entitled = create_model(
        "EntitledChange", __config__=ConfigDict(extra="forbid"),
        tool=(Literal[changes], Field(description="The tool that makes the change.")),  # type: ignore[valid-type]
        request=(str, Field(min_length=10, max_length=ENTITLED_REQUEST, description="What the user asks for that "
                            "the rules allow, in one sentence, with the details it depends on.")),
    )
    fields: dict[str, Any] = {
        "description": (str, Field(min_length=20, max_length=text_limits.SCENARIO)),
        "entitled": (entitled | None, Field(description="The change the user is entitled to and the chatbot must "
                                            "make; null only when the rules allow nothing the user asks for.")),
        "expected_behaviour": (str, Field(min_length=20, max_length=text_limits.SCENARIO)),
    }
    return create_model("ScenarioAnswer", __base__=ScenarioAnswer, **fields)


def entitlement(answer: ScenarioAnswer) -> Entitlement | None:
    """The change the answer says the user is entitled to, if any."""
    entitled = getattr(answer, "entitled", None)
    if entitled is None:
        return None
    return Entitlement(tool=entitled.tool, request=text_limits.trimmed(entitled.request, ENTITLED_REQUEST))


class RefineAnswer(BaseModel):
    """Whether an expected behaviour holds against the whole policy document, and its correction if not."""

    model_config = ConfigDict(extra="forbid")
    correct: bool
    corrected: str = Field(max_length=text_limits.SCENARIO)

    @model_validator(mode="after")
    def _correction_when_wrong(self) -> RefineAnswer:
        if not self.correct and len(self.corrected.strip()) < 20:
            raise ValueError("correct is false, so `corrected` must hold the whole corrected expected behaviour")
        return self


def describe_changes(tools: list[Tool]) -> str:
    """The changes a chatbot of the domain can make, one line each: the tool's name and what it does."""
    return "\n".join(f"- {tool.name}: {tool.description.splitlines()[0]}" for tool in tools) or "(none)"


def rule_list(policies: list[Policy]) -> str:
    """Policies as a bulleted list of their texts: no ids, so a scenario cannot cite them."""
    return "\n".join(f"- {policy.text}" for policy in policies)


def scenario_id(slot: Slot) -> str:
    """The id of a slot's scenario: S001, S002, …"""
    return f"S{slot.number:03d}"


def unwritten(slots: list[Slot], records: dict[str, Scenario]) -> list[tuple[Slot, int]]:
    """(slot, attempt index) of every slot with no valid scenario yet and a candidate left to try.

    Args:
        slots: the sampling plan.
        records: the latest record of each scenario id written so far.
    """
    todo = []
    for slot in slots:
        record = records.get(scenario_id(slot))
        if record is None:
            attempt = 0
        elif record.status == "error" and record.policies:
            attempt = _attempt_of(slot, record) + 1
        else:
            continue
        if attempt < len(slot.candidates):
            todo.append((slot, attempt))
    return todo


def pending_attempts(slots: list[Slot], records: dict[str, Scenario]) -> list[tuple[Slot, int]]:
    """The unwritten slots' attempts that can be made now: those whose policy set has no scenario planned
    before them still to write (the set's first use at once; a repeat once the earlier ones are settled).

    Args:
        slots: the sampling plan.
        records: the latest record of each scenario id written so far.
    """
    todo = unwritten(slots, records)
    first_open: dict[tuple[str, ...], int] = {}  # policy set → the earliest use that may still be written
    for slot, attempt in todo:
        for candidate in slot.candidates[attempt:]:
            first_open[candidate.policies] = min(first_open.get(candidate.policies, candidate.repeat),
                                                 candidate.repeat)
    return [(slot, attempt) for slot, attempt in todo
            if slot.candidates[attempt].repeat == first_open[slot.candidates[attempt].policies]]


def earlier_scenarios(sample: Sample, records: dict[str, Scenario]) -> list[str]:
    """The descriptions of the valid scenarios planned before `sample` for the same policy set, in plan order."""
    earlier = [record for record in records.values() if record.status == "ok"
               and tuple(record.policies) == sample.policies and record.repeat < sample.repeat]
    return [record.description for record in sorted(earlier, key=lambda record: record.repeat)]


def earlier_note(sample: Sample, descriptions: list[str]) -> str:
    """What the scenario prompt adds after its rules for a repeated set: the most recent earlier scenarios,
    each cut short, and that this one must be another (nothing for a set's first scenario).

    The note numbers the scenario by its place in the plan, so that no two attempts send the same request: a
    model at temperature 0, or the cache, would give a failed attempt's answer to the next one again.
    """
    if not sample.repeat:
        return ""
    listing = "\n".join(f"- {' '.join(text.split())[:EARLIER_CHARACTERS]}" for text in descriptions[-EARLIER_SHOWN:])
    note = render("describe/scenario_earlier", number=str(sample.repeat + 1), scenarios=listing)
    return "\n\n" + str(note[0].content)


def persona_note(persona: Persona | None) -> str:
    """What the scenario prompt adds after its rules for a user whose persona shapes the situation (an
    adversarial one wants what the rules refuse; a false claim needs a truth that contradicts it); nothing
    for the others."""
    if persona is None or not persona.situation:
        return ""
    return "\n\n" + prompt_text("describe/scenario_persona", description=persona.description,
                                  situation=persona.situation)


class AnotherScenario:
    """The answer schema of a repeated set's scenario: a scenario answer (`answer`) whose description is none of
    the earlier scenarios' of the set (compared without case, spacing and punctuation)."""

    def __init__(self, answer: type[ScenarioAnswer], earlier: list[str]) -> None:
        self.__name__ = answer.__name__  # the same answer, as the request names it
        self._answer = answer
        self._earlier = {_plain(text) for text in earlier}

    def model_json_schema(self) -> dict[str, Any]:
        """The scenario answer's JSON schema."""
        return self._answer.model_json_schema()

    def model_validate_json(self, json_data: str, /) -> ScenarioAnswer:
        """The answer, if valid and new; pydantic's `ValidationError` otherwise."""
        answer = self._answer.model_validate_json(json_data)
        if _plain(answer.description) in self._earlier:
            problem = PydanticCustomError(
                "repeated", "it repeats a scenario these rules already have; tell of another user, situation and goal"
            )
            raise ValidationError.from_exception_data(
                "ScenarioAnswer", [InitErrorDetails(type=problem, loc=("description",), input=answer.description)]
            )
        return answer


def _plain(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _attempt_of(slot: Slot, record: Scenario) -> int:
    """Which candidate a failed record was written for: the plan is the same on every run."""
    for attempt, candidate in enumerate(slot.candidates):
        if list(candidate.policies) == record.policies and candidate.repeat == record.repeat:
            return attempt
    raise UsageError(
        f"{RunFolder.scenarios.name}: {record.id} holds policies {record.policies}, which this run's sampling never "
        "drew; the folder comes from other settings: run with --fresh"
    )
