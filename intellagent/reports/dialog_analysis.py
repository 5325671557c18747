"""The analysis of one dialog: which of its policies were tested and which the chatbot broke.

The model answers in a schema built for the dialog at hand: policy ids are limited to the dialog's
own policies and turns to the chatbot's messages, so an answer that names anything else is sent
back by the LLM layer instead of being guessed at here.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, create_model

from intellagent.artifacts import Analysis, Dialog, PolicyCatalog, Violation
from intellagent.llm import LLM
from intellagent.prompt_files import prompt_text, render
from intellagent.reports.text import one_line
from intellagent.stage import ItemFailed

STEP = "report/analysis"

# Tool results can be long database rows; the analysis needs their gist, not every field.
TOOL_RESULT_CHARS = 500

RATED = ("pass", "fail")
"""Analysis statuses that count towards adherence."""

JUDGED = ("pass", "fail", "incomplete")
"""Dialog statuses that get a verdict: every dialog that ran, whether or not the user reached their goal."""

STATUSES = ("pass", "fail", "user_fault", "incomplete", "error")
"""Every analysis status, in the order reports count them."""


def by_status(analyses: list[Analysis]) -> dict[str, int]:
    """How many analyses have each status, every status a key."""
    return {status: sum(analysis.status == status for analysis in analyses) for status in STATUSES}


# What a re-run of the same dialog changes without changing the conversation: its timings, and which
# of its calls the cache answered; and what it was played for (`role`), which the judge never reads, so that a run
# recorded before the field keeps its analyses.
_CIRCUMSTANCES: dict[str, Any] = {"duration_s": True, "usage": True, "transcript": {"__all__": {"at_s"}},
                                  "role": True}


# Fields the chatbot's own simulated dialogs leave empty (a production conversation's, an attack's), left out of
# its digest then: a run from before they existed keeps its analyses.
_OFTEN_EMPTY = ("inapplicable", "production", "planted")


def dialog_digest(dialog: Dialog) -> str:
    """A short digest of a dialog's conversation and outcome: its analysis is redone when they change."""
    left_out = {**_CIRCUMSTANCES, **{name: True for name in _OFTEN_EMPTY if not getattr(dialog, name)}}
    return hashlib.sha256(dialog.model_dump_json(exclude=left_out).encode("utf-8")).hexdigest()[:16]


Reason = Annotated[
    str, AfterValidator(one_line), Field(min_length=1, max_length=400, description="One line that quotes that turn.")
]


# Dialogs of the same policies and turns share a schema, and with it the JSON schema sent, worked out once:
# a few milliseconds a dialog. Bounded, as every other combination makes a class of its own.
@lru_cache(maxsize=256)
def answer_schema(policy_ids: tuple[str, ...], chatbot_turns: tuple[int, ...]) -> type[BaseModel]:
    """The answer schema of one dialog: ids and turns can only be ones that exist in it.

    Args:
        policy_ids: the dialog's policies (the only ids an answer may name).
        chatbot_turns: transcript indexes of the chatbot's messages (the only turns a violation may cite).
    """
    policy = Literal[policy_ids]  # type: ignore[valid-type]
    turn = Literal[chatbot_turns]  # type: ignore[valid-type]
    violation = create_model(
        "PolicyViolation",
        policy=(policy, Field(description="Id of the broken policy.")),
        turn=(turn, Field(description="Number of the chatbot turn that broke it.")),
        reason=(Reason, ...),
    )
    # No verdict is asked: it follows from the violations. The embedded model answered "fail" with no
    # violation three times in a row, and a fail that names no broken rule is no evidence anyway.
    return create_model(
        "DialogAnalysis",
        # Bounded lists: a small model under a grammar could otherwise repeat an item until it runs out of tokens.
        tested=(list[policy], Field(max_length=len(policy_ids), description="Policies the conversation tested.")),
        violations=(list[violation], Field(max_length=len(policy_ids), description="Policies broken; empty if none.")),
    )


def conversation_text(dialog: Dialog) -> str:
    """The transcript as the analysis reads it: numbered turns, tool calls with their results (the user's own,
    on its side of the world, as the user's).

    The user's private thoughts are left out: they hold the user's own verdict, which is given
    separately and should not be read twice as evidence.
    """
    lines = []
    for turn, message in enumerate(dialog.transcript):
        for call in message.tool_calls:
            arguments = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
            result = one_line(call.result or "", TOOL_RESULT_CHARS)
            if message.role == "user":
                lines.append(f"[{turn}] user uses {call.name}({arguments}) on their side -> {result}")
                continue
            verb = "reports it called" if call.reported else "calls"  # a reported call was not seen to happen
            lines.append(f"[{turn}] chatbot {verb} {call.name}({arguments}) -> {result}")
        if message.content or message.role == "chatbot":
            lines.append(f"[{turn}] {message.role}: {message.content}")
    return "\n".join(lines)


def judgement_text(dialog: Dialog) -> str:
    """What the simulation concluded, and what the critique said about that conclusion (a production
    conversation had neither: the judge is told so)."""
    if dialog.production is not None:
        return prompt_text("report/analysis_production")
    lines = [f"Simulation verdict: {dialog.status}. {dialog.reason}".strip()]
    for exchange in dialog.critiques:
        feedback = f": {exchange.feedback}" if exchange.feedback else ""
        lines.append(f"The {exchange.verdict} verdict at turn {exchange.turn} was {exchange.outcome}{feedback}")
    return "\n".join(lines)


def user_note(dialog: Dialog) -> str:
    """What the judge is told of the user, where it changes how the chatbot's answers are read: an adversarial
    persona, the language the user wrote in, and a false claim, which the chatbot had to check against the
    world (nothing for another user)."""
    persona, claim = dialog.persona, dialog.claim
    if persona is None or not (persona.adversarial or persona.language or claim):
        return ""
    parts = [prompt_text("report/analysis_persona", persona=persona.name, description=persona.description)]
    if persona.language:
        parts.append(prompt_text("report/analysis_language", language=persona.language))
    if claim is not None:
        parts.append(prompt_text("report/analysis_claim", statement=claim.statement, truth=claim.contradiction()))
    return "\n\n" + "\n".join(parts)


async def analyse(llm: LLM, dialog: Dialog, catalog: PolicyCatalog) -> Analysis:
    """Ask the judge for the verdict on a dialog that ran, per policy.

    Raises:
        ItemFailed: the dialog cannot be analysed (no policies, or no chatbot turn).
        AnswerInvalid: the model kept answering outside the schema.
    """
    known = [pid for pid in dialog.policies if _known(catalog, pid)]
    if not known:
        raise ItemFailed(f"dialog {dialog.id} lists no policy of policies.json; nothing to analyse")
    turns = [i for i, message in enumerate(dialog.transcript) if message.role == "chatbot"]
    if not turns:
        raise ItemFailed(f"dialog {dialog.id} has no chatbot message to analyse")
    messages = render(
        "report/analysis",
        policies=catalog.listing(known),
        conversation=conversation_text(dialog),
        judgement=judgement_text(dialog),
        user=user_note(dialog),
    )
    answer: Any = await llm.answer(messages, answer_schema(tuple(known), tuple(turns)), step=STEP)
    return from_answer(dialog, answer)


def from_answer(dialog: Dialog, answer: Any) -> Analysis:
    """The analysis record of a validated answer: one violation per policy, broken ones count as tested,
    and the dialog fails exactly when one was broken."""
    violations: dict[str, Violation] = {}
    for item in answer.violations:
        violations.setdefault(item.policy, Violation(policy=item.policy, turn=item.turn, reason=item.reason))
    tested = set(answer.tested) | set(violations)
    return Analysis(
        id=dialog.id,
        status="fail" if violations else "pass",
        tested=[pid for pid in dialog.policies if pid in tested],
        violations=[violations[pid] for pid in dialog.policies if pid in violations],
        source=dialog_digest(dialog),
    )


def judgeable(dialog: Dialog) -> bool:
    """Whether a dialog has something to judge: it ran (not an `error`), and the user said something.

    A dialog whose simulated user never managed a first message holds nothing but the greeting; a
    judge asked about it finds violations in thin air (the embedded model did).
    """
    return dialog.status in JUDGED and any(message.role == "user" for message in dialog.transcript)


def unrated(dialog: Dialog) -> Analysis:
    """The record of a dialog with nothing to judge (see `judgeable`): an `error` one under its own status, any
    other `incomplete`, whatever its simulated user's last word said of a chatbot it never spoke to."""
    if dialog.status in ("error", "incomplete"):
        return Analysis(id=dialog.id, status=dialog.status, error=dialog.reason or None, source=dialog_digest(dialog))
    return Analysis(id=dialog.id, status="incomplete", error="the simulated user never spoke",
                    source=dialog_digest(dialog))


def failed(dialog: Dialog, reason: str) -> Analysis:
    """The record of a dialog whose analysis failed: reported as an error, never as a chatbot failure."""
    return Analysis(id=dialog.id, status="error", error=f"analysis: {reason}", source=dialog_digest(dialog))


def _known(catalog: PolicyCatalog, policy_id: str) -> bool:
    return any(policy.id == policy_id for policy in catalog.policies)
