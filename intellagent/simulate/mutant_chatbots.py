"""Calibration's mutants: the chatbot under test with one rule broken on purpose, to see whether the run catches it.

- **Automatic** (the `llm_agent` chatbot, `calibrate.automatic`): for every policy the run's events
  sample, `omit-<id>` is the agent with the rule's passage taken out of its policy document, and
  `opposite-<id>` the agent with that passage replaced by the rule reversed, written by the `policies`
  model (one reversed instruction is a task a small model does well; a rewritten paragraph is not).
  The passage is the document's block — a list item, a paragraph, a table row — that covers most of
  the rule's words (`describe.passages.rule_passage`). A rule no block covers well enough gets no
  automatic mutant, and the record says why.
- **Supplied** (`calibrate.mutants`, or `mutants=` in the API): any chatbot, with `breaks` naming a
  policy id, a deterministic check (the policies it enforces) or words of the rule's text (every
  policy whose text contains them).

A mutant plays up to `calibrate.events_per_mutant` of the events whose scenario samples one of its
policies, once each; it is caught when a dialog of it records a violation of one of them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from intellagent.artifacts import Event, MutantList, MutantRecord, Policy, PolicyCatalog
from intellagent.chatbots import Chatbot, adapt
from intellagent.chatbots.selection import configured_chatbot, llm_agent
from intellagent.context import log
from intellagent.describe.passages import rule_passage, stems
from intellagent.errors import failure_reason
from intellagent.llm import LLMError
from intellagent.prompt_files import render

if TYPE_CHECKING:
    from intellagent.context import RunContext



@dataclass
class Mutant:
    """A mutant supplied through the API: a chatbot like the one under test that breaks one rule on purpose.

    Args:
        chatbot: anything `chatbot=` takes (a callable, a compiled LangGraph graph, an adapter).
        breaks: the policy it breaks: a policy id (P03), a deterministic check's name, or words of the rule.
    """

    chatbot: Any
    breaks: str


@dataclass
class PlayableMutant:
    """A mutant's record (mutants.json) and, when it could be made, the chatbot that plays it."""

    record: MutantRecord
    chatbot: Chatbot | None


class OppositeRule(BaseModel):
    """One rule of a policy, reversed."""

    opposite: str = Field(min_length=1, description="The instruction that reverses the rule, in one or two sentences.")


def mutant_dialog_id(event_id: str, mutant: str) -> str:
    """The id of a mutant's dialog on an event."""
    return f"{event_id}~{mutant}"


def resolve_breaks(catalog: PolicyCatalog, breaks: str) -> list[str]:
    """The ids of the policies `breaks` names: an id, a check's name, or words found in the rules' text."""
    wanted = breaks.strip()
    if any(policy.id == wanted for policy in catalog.policies):
        return [wanted]
    if wanted in catalog.checks:
        return list(catalog.checks[wanted])
    return [policy.id for policy in catalog.policies if wanted.lower() in policy.text.lower()]


def _replaced(document: str, span: tuple[int, int], passage: str | None) -> str:
    lines = document.splitlines()
    inserted = [] if passage is None else passage.splitlines()
    return "\n".join([*lines[: span[0]], *inserted, *lines[span[1] :]]) + "\n"


async def automatic_mutants(ctx: RunContext, policies: list[Policy]) -> list[PlayableMutant]:
    """The `llm_agent`'s automatic mutants of each policy, per `calibrate.automatic`; the opposites are
    written side by side, like any stage's items."""
    document = ctx.environment.policy
    lines = document.splitlines()
    spans = {policy.id: rule_passage(document, policy.text) for policy in policies}
    reversing = [p for p in policies if spans[p.id] is not None] if "opposite" in ctx.config.calibrate.automatic else []
    opposites = dict(zip([p.id for p in reversing],
                         await asyncio.gather(*(_opposite(ctx, p) for p in reversing), return_exceptions=True),
                         strict=True))
    made: list[PlayableMutant] = []
    for policy in policies:
        span = spans[policy.id]
        for kind in ctx.config.calibrate.automatic:
            record = MutantRecord(name=f"{kind}-{policy.id}", kind=kind, breaks=policy.id, policies=[policy.id])
            opposite = opposites.get(policy.id) if kind == "opposite" else None
            chatbot = None
            if span is None:
                record.status, record.reason = "error", "no passage of the policy document states this rule clearly"
            elif isinstance(opposite, BaseException):
                if not isinstance(opposite, LLMError):
                    raise opposite  # an aborted run, or a bug: not this mutant's failure
                record.status, record.reason = "error", f"its opposite was not written: {failure_reason(opposite)}"
            else:
                record.removed, record.inserted = "\n".join(lines[span[0] : span[1]]), opposite
                chatbot = llm_agent(ctx, ctx.config.chatbot, policy=_replaced(document, span, opposite))
            made.append(PlayableMutant(record, chatbot))
    return made


async def _opposite(ctx: RunContext, policy: Policy) -> str:
    """The rule reversed, as an instruction (the `policies` model writes it)."""
    messages = render("simulate/opposite_rule", rule=policy.text)
    answer = await ctx.llms["policies"].answer(messages, OppositeRule, step="simulate/opposite_rule")
    if stems(answer.opposite) == stems(policy.text):
        raise LLMError("the model gave the rule back unchanged")
    return answer.opposite.strip()


def supplied_mutants(ctx: RunContext, catalog: PolicyCatalog, given: dict[str, Mutant]) -> list[PlayableMutant]:
    """The mutants of the config (`calibrate.mutants`) and of the API (`mutants=`), the API's winning on a name."""
    sources: dict[str, tuple[str, Any]] = {
        name: (config.breaks, config) for name, config in ctx.config.calibrate.mutants.items()
    }
    sources.update({name: (mutant.breaks, mutant) for name, mutant in given.items()})
    made = []
    for name, (breaks, source) in sources.items():
        record = MutantRecord(name=name, kind="supplied", breaks=breaks, policies=resolve_breaks(catalog, breaks))
        if not record.policies:
            record.status = "error"
            record.reason = f"breaks {breaks!r} names no policy of this run (not an id, a check, or words of a rule)"
            made.append(PlayableMutant(record, None))
            continue
        chatbot = adapt(source.chatbot) if isinstance(source, Mutant) else configured_chatbot(
            ctx, source, where=f"calibrate.mutants.{name}"
        )
        made.append(PlayableMutant(record, chatbot))
    return made


async def prepare_mutants(
    ctx: RunContext, catalog: PolicyCatalog, events: list[Event], given: dict[str, Mutant]
) -> list[PlayableMutant]:
    """Every mutant of a calibrated run, recorded in mutants.json (those that could not be made, with why).

    Args:
        events: the valid events; their policies are the ones given automatic mutants.
        given: the mutants passed through the API.
    """
    sampled = {policy for event in events for policy in event.policies}
    made = supplied_mutants(ctx, catalog, given)
    if ctx.chatbot is None and ctx.config.chatbot.type == "llm_agent":
        made += await automatic_mutants(ctx, [p for p in catalog.policies if p.id in sampled])
    elif ctx.config.calibrate.enabled and not made:
        log.warning("--calibrate: only the llm_agent chatbot gets automatic mutants; supply your own "
                    "(calibrate.mutants, or mutants= in the API) to measure detection")
    ctx.folder.mutants.save(MutantList(mutants=[m.record for m in made]))
    return made


def mutant_events(record: MutantRecord, events: list[Event], limit: int) -> list[Event]:
    """The events a mutant plays: the first `limit` whose scenario samples one of its policies."""
    return [event for event in events if set(event.policies) & set(record.policies)][:limit]


async def calibration_mutants(ctx: RunContext, events: list[Event]) -> list[PlayableMutant]:
    """The mutants a calibrated run plays (recorded in mutants.json); none when the run does not calibrate."""
    if not (ctx.config.calibrate.active or ctx.mutants):
        return []
    return await prepare_mutants(ctx, ctx.folder.policies.require(), events, ctx.mutants)
