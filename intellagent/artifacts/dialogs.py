"""dialogs.jsonl: one simulated conversation per event, with everything that happened in it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from intellagent.artifacts.adversary import Planted
from intellagent.artifacts.audit import UserAudit, UserFault
from intellagent.artifacts.outcomes import OutcomeGrade
from intellagent.artifacts.personas import Claim, Persona, PlayedMove
from intellagent.artifacts.tau import TauGrade
from intellagent.artifacts.usage import Tally

DialogStatus = Literal["pass", "fail", "incomplete", "error"]

DialogRole = Literal["chatbot", "mutant", "solo", "rollout", "production", "attack"]
"""What a dialog was played for, which decides what it counts in:

- `chatbot`: the chatbot under test, played the run's own way; the run's figures are made of these.
- `mutant`: one of the chatbot's mutants (calibration), which the run must catch; counted apart.
- `solo`: the chatbot under test played solo beside its dual dialog (`simulate.dual_control: both`); set beside
  the run's figures, never in them.
- `rollout`: one branch of the rollouts' search, recorded in its tree rather than in dialogs.jsonl.
- `production`: a real conversation of the chatbot (transcripts.jsonl), judged beside the tests.
- `attack`: an attempt of the red team's on one rule, recorded in its attack's tree rather than in dialogs.jsonl.
"""

SOLO_SUFFIX = "-solo"
"""How the id of a solo dialog played beside a dual one ends: read back only from a record older than `role`."""


class ToolCall(BaseModel):
    """A tool the chatbot called, with its arguments and what it returned."""

    id: str
    name: str
    arguments: dict[str, Any]
    result: str | None = None
    reported: bool = Field(
        default=False,
        description="The chatbot only said it made this call: it did not run on the dialog's world, so nothing "
        "checked that it happened or what it returned.",
    )

    @property
    def failed(self) -> bool:
        """Whether the tool refused or failed: what it returned is an `Error: …` observation."""
        return (self.result or "").startswith("Error")


class Message(BaseModel):
    """One entry of the transcript."""

    role: Literal["chatbot", "user"]
    content: str
    thought: str | None = Field(default=None, description="user: the private reasoning, never sent.")
    tool_calls: list[ToolCall] = Field(
        default_factory=list, description="chatbot: calls made before replying; user: calls of its own tools on its "
        "side of the world, made before its message (dual control), which the chatbot never sees.")
    moves: list[PlayedMove] = Field(
        default_factory=list, description="user: the persona's moves in the message, the scripted words among them."
    )
    at_s: float = Field(default=0.0, description="Seconds since the dialog started.")


class CritiqueExchange(BaseModel):
    """The user's stop verdict and the critique's answer to it."""

    turn: int = Field(description="The user turn that stopped the dialog (1 = the user's first answer).")
    verdict: Literal["success", "failure"]
    reason: str
    thought: str = Field(default="", description="The user's private thought when it stopped.")
    confirmed: bool = Field(description="Whether the verdict stood; False: the critique sent the dialog back.")
    checked: bool = Field(default=True, description="False: accepted unchecked, the critique's send-backs used up.")
    feedback: str = ""

    @property
    def outcome(self) -> str:
        """What became of the verdict, in words: confirmed, sent back, or stood unchecked."""
        if not self.checked:
            return "stood unchecked"
        return "confirmed" if self.confirmed else "sent back"


USER_CUT_SHORT = "the simulated user could not go on"
"""How the reason of an `incomplete` dialog begins when its simulated user could not write a usable turn: the
simulator failed, not the chatbot."""


class Finding(BaseModel):
    """A breach that a deterministic check found in a dialog, with its evidence."""

    check: str = Field(default="", description="The check that found it (set when the check runs).")
    message: str = Field(description="What rule was broken, and how, in one line.")
    turn: int | None = Field(default=None, description="The transcript index of the message or call at fault.")
    call: str | None = Field(default=None, description="The tool call at fault, as name(arguments).")
    row: str | None = Field(default=None, description="The database row at fault.")


class Dialog(BaseModel):
    """A conversation between the simulated user and the chatbot under test, and its verdict."""

    id: str = Field(description="The dialog's id, unique in its file: the event's, followed by -t2, -t3, ... for "
                    "its later trials, by `~<mutant>` for a mutant's dialog, and by -solo for a solo dialog played "
                    "beside a dual one. Nothing reads it for what the dialog is: `role`, `trial`, `mutant` and "
                    "`control` say.")
    role: DialogRole = Field(
        default="chatbot",
        description="What it was played for: chatbot (the chatbot under test, in the run's figures), mutant (a "
        "calibration mutant), solo (played solo beside a dual dialog, kept out of the figures), rollout (a branch "
        "of the rollouts' search), production (a real conversation), attack (an attempt of the red team's).",
    )
    event: str | None = Field(default=None, description="The event it played (None in older runs: its id).")
    trial: int = Field(default=1, ge=1, description="Which trial of the event it is (simulate.trials).")
    mutant: str | None = Field(
        default=None,
        description="The mutant of the chatbot that played it (calibration); None: the chatbot under test.",
    )
    control: Literal["dual", "solo"] | None = Field(
        default=None,
        description="Where the user has tools of its own: dual, the user acted on its side as the chatbot guided it; "
        "solo, the chatbot had the user's tools itself (simulate.dual_control). None: the domain gives the user none.",
    )
    status: DialogStatus
    reason: str = Field(default="", description="Why it passed or failed, or what went wrong.")
    policies: list[str] = Field(default_factory=list)
    challenge: int = 0
    transcript: list[Message] = Field(default_factory=list)
    critiques: list[CritiqueExchange] = Field(default_factory=list)
    turns: int = Field(default=0, description="User turns taken.")
    usage: dict[str, Tally] = Field(default_factory=dict, description="LLM usage per role in this dialog.")
    duration_s: float = 0.0
    database: str | None = Field(
        default=None, description="What the dialog changed in its event's world (`dialogs/<id>.delta.json`), "
        "relative to the run folder."
    )
    digest: str | None = Field(
        default=None, description="sha256 of the dialog's world when it ended (the event's digest: no change)."
    )
    checks: list[str] = Field(default_factory=list, description="The deterministic checks run on the dialog.")
    ruled: list[str] = Field(
        default_factory=list, description="Those of them that ruled on their policies: they found a breach, rule in "
        "every dialog, or the dialog gave them something to rule on (a call of a tool they are about)."
    )
    inapplicable: list[str] = Field(
        default_factory=list, description="The checks that need a world the dialog does not come with (a production "
        "transcript's): not run, and ruling on nothing."
    )
    findings: list[Finding] = Field(default_factory=list, description="What those checks found, with evidence.")
    audit: UserAudit | None = Field(
        default=None, description="What the simulated user did wrong, with turns and evidence (None: not audited: "
        "the dialog failed to run, or an older run)."
    )
    tau: TauGrade | None = Field(default=None, description="τ-bench mode: the task's reward and what it missed.")
    persona: Persona | None = Field(default=None, description="Who the user was: the event's persona.")
    claim: Claim | None = Field(
        default=None, description="The false claim the user made: the chatbot had to check it against the world."
    )
    grade: OutcomeGrade | None = Field(
        default=None, description="The dialog graded against its event's expected outcome (None: the event has none)."
    )
    planted: Planted | None = Field(
        default=None, description="--red-team: the instruction planted in a record its chatbot reads (None: none)."
    )
    production: str | None = Field(
        default=None, description="A production conversation: its name, format and place in the transcripts file "
        "(None: a simulated dialog)."
    )

    @property
    def event_id(self) -> str:
        """The id of the event (and scenario) the dialog played."""
        return self.event or self.id

    @property
    def deciding_fault(self) -> UserFault | None:
        """Its simulated user's first fault that could have decided its verdict (`UserAudit.deciding`), which sets
        it aside; None: none did, or it was not audited."""
        if self.audit is None:
            return None
        last_answer = max((turn for turn, message in enumerate(self.transcript) if message.role == "chatbot"),
                          default=-1)
        return self.audit.deciding(last_answer)

    @model_validator(mode="before")
    @classmethod
    def _role_of_an_older_record(cls, data: Any) -> Any:
        """A record written before `role` (a resumed run's) gets it once, as it loads, from what told it then."""
        if isinstance(data, dict) and "role" not in data:
            return {**data, "role": former_role(data)}
        return data


def former_role(data: dict[str, Any]) -> DialogRole:
    """The role of a dialog recorded without one, from the fields that told it before: a production conversation
    named its line, a mutant's dialog its mutant, and a solo dialog played beside a dual one had its id end in
    `SOLO_SUFFIX`."""
    if data.get("production"):
        return "production"
    if data.get("mutant"):
        return "mutant"
    if data.get("control") == "solo" and str(data.get("id", "")).endswith(SOLO_SUFFIX):
        return "solo"
    return "chatbot"
