"""Writing scenarios: the answers that turn a sampled policy set into a scenario and check it, and
which attempts of which slots are still to be made.

A slot's scenario keeps its id (S001 for slot 1) across attempts: a failed attempt is recorded under
it, and a later attempt's record replaces it, so scenarios.jsonl ends with one line per slot.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from intellagent import text_limits
from intellagent.artifacts import Policy, Scenario
from intellagent.describe.sampling import Slot
from intellagent.errors import UsageError

SCENARIOS_FILE = "scenarios.jsonl"


class ScenarioAnswer(BaseModel):
    """One conversation that tests a set of policies, and what the chatbot must do in it."""

    model_config = ConfigDict(extra="forbid")
    description: str = Field(min_length=20, max_length=text_limits.SCENARIO)
    expected_behaviour: str = Field(min_length=20, max_length=text_limits.SCENARIO)


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


def rule_list(policies: list[Policy]) -> str:
    """Policies as a bulleted list of their texts: no ids, so a scenario cannot cite them."""
    return "\n".join(f"- {policy.text}" for policy in policies)


def scenario_id(slot: Slot) -> str:
    """The id of a slot's scenario: S001, S002, …"""
    return f"S{slot.number:03d}"


def pending_attempts(slots: list[Slot], records: dict[str, Scenario]) -> list[tuple[Slot, int]]:
    """(slot, attempt index) of every slot with no valid scenario yet and a candidate left to try.

    Args:
        slots: the sampling plan.
        records: the latest record of each scenario id written so far.
    """
    pending = []
    for slot in slots:
        record = records.get(scenario_id(slot))
        if record is None:
            pending.append((slot, 0))
        elif record.status == "error" and record.policies:
            attempt = _attempt_of(slot, record) + 1
            if attempt < len(slot.candidates):
                pending.append((slot, attempt))
    return pending


def _attempt_of(slot: Slot, record: Scenario) -> int:
    """Which candidate a failed record was written for: the plan is the same on every run."""
    for attempt, candidate in enumerate(slot.candidates):
        if list(candidate.policies) == record.policies:
            return attempt
    raise UsageError(
        f"{SCENARIOS_FILE}: {record.id} holds policies {record.policies}, which this run's sampling never "
        "drew; the folder comes from other settings: run with --fresh"
    )
