"""events.jsonl: a scenario made concrete, with the database in which it is true."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from intellagent.artifacts.adversary import AttackBrief, Planted
from intellagent.artifacts.outcomes import ExpectedOutcome
from intellagent.artifacts.personas import Claim, Persona
from intellagent.artifacts.scenarios import Entitlement
from intellagent.artifacts.tau import TauTask


class Event(BaseModel):
    """A scenario with real values and its own world: the rows it needs over the run's background world
    (`events/<id>.delta.json`; see `intellagent.environment.worlds`)."""

    id: str = Field(description="The scenario's id: one event per scenario.")
    status: Literal["ok", "error"] = "ok"
    error: str | None = None
    policies: list[str] = Field(default_factory=list)
    challenge: int = 0
    scenario: str = Field(default="", description="The scenario with every symbol replaced by its value.")
    expected_behaviour: str = Field(default="", description="The expected behaviour, values substituted.")
    symbols: dict[str, str] = Field(default_factory=dict, description="Symbol → value (U1 → 'mia_li_3668').")
    user_rows: dict[str, list[dict[str, Any]]] = Field(
        default_factory=dict, description="Rows the simulated user may know about, per table; a row of the user's "
        "own side (its device, its app) by its key alone, as the user sees its state only through its own tools."
    )
    user_side_rows: dict[str, list[dict[str, Any]]] = Field(
        default_factory=dict, description="The event's rows of the user's own side, per table, in full: the state "
        "the user finds with its tools (dual control)."
    )
    database: str | None = Field(
        default=None, description="The event's world, relative to the run: its rows over the background world "
        "(`events/<id>.delta.json`), or a complete SQLite database (`events/tau.sqlite`)."
    )
    digest: str | None = Field(default=None, description="sha256 of the world's rows, as created.")
    repairs: int = Field(default=0, description="Rows sent back for repair before they validated.")
    dropped: list[str] = Field(
        default_factory=list,
        description="The model's facts that no valid row could hold, each with the reason: the event is valid "
        "without them, and poorer by them.",
    )
    task: TauTask | None = Field(
        default=None, description="τ-bench mode: the published task, whose gold actions grade the event's dialogs."
    )
    persona: Persona | None = Field(default=None, description="Who the user is: the scenario's persona.")
    claim: Claim | None = Field(
        default=None, description="The false claim the user makes, chosen from the event's rows, which contradict it "
        "(a persona that claims only)."
    )
    entitled: Entitlement | None = Field(
        default=None, description="The change the user is entitled to (the scenario's): the expected outcome makes it, "
        "so that a chatbot that does nothing fails; None: a refusal scenario, or a published task."
    )
    expected: ExpectedOutcome | None = Field(
        default=None, description="What a chatbot that keeps every sampled rule does here, verified by running it; "
        "None: no outcome could be verified (see `expected_error`), and the event's dialogs are judged without one."
    )
    expected_error: str | None = Field(default=None, description="Why the event has no verified outcome.")
    attack: AttackBrief | None = Field(
        default=None, description="--red-team: the event as an attack dialog plays it, its user an attacker with this "
        "brief (None: the event's own user; events.jsonl never holds one)."
    )
    planted: Planted | None = Field(
        default=None, description="--red-team: the instruction planted in a record of its world, which its dialogs' "
        "chatbot reads (None: nothing planted; events.jsonl never holds one)."
    )
