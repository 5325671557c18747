"""One scenario on its way to an event: what the steps of the event graph (`graphs.populate`) share, and
the work of each step.

The model contributes only the scenario's facts: the plan's rows as symbols, the constraints the policy
puts on them, their governed values, and repairs of the values a validator rejected. Keys, references
and every value no rule is about come from the framework (`rows.assemble`), so whatever the model
answers, the checked event is a valid world.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from langchain_core.messages import BaseMessage

from intellagent.artifacts import Event, Scenario
from intellagent.checks.compiled_checks import catalog_checks
from intellagent.checks.trace import Trace, WorldRows
from intellagent.config import on_locally
from intellagent.context import RunContext
from intellagent.environment import worlds
from intellagent.environment.checks import Check
from intellagent.llm import LLM
from intellagent.populate.background import BACKGROUND, build_background
from intellagent.populate.background_world import (
    BackgroundWorld,
    describe_counts,
    describe_samples,
    describe_tables,
    example_names,
)
from intellagent.populate.claims import false_claim
from intellagent.populate.final import final_texts, user_rows
from intellagent.populate.insert import Rejection, describe_rejected, insert_rows
from intellagent.populate.plan import Constraints, Plan
from intellagent.populate.row_models import ValuesSchema, constraints_model, plan_model
from intellagent.populate.rows import AssembledRow, Assignment, assemble
from intellagent.populate.scratch import ScratchWorld
from intellagent.populate.tables import Tables
from intellagent.prompt_files import prompt_text, render
from intellagent.run_folder import RunFolder

if TYPE_CHECKING:
    from intellagent.environment import Environment


@dataclass
class EventDeps:
    """What every event of a run shares (the event graph's runtime context): the domain, the background world,
    its copy rows are tried in, and the model.

    Attributes:
        policies: the text of every policy, by id (what an event's expected outcome is proposed against).
        background_rows: the background world as the domain's checks read it, each table read once.
        programs: the run's rules and compiled assertions as checks, each with the policies it enforces: an
            expected outcome is held to those of its event's policies.
    """

    ctx: RunContext
    env: Environment
    tables: Tables
    world: BackgroundWorld
    scratch: ScratchWorld
    world_prompt: str
    samples: str
    llm: LLM
    lean: bool
    drafts: bool
    policies: dict[str, str]
    background_rows: WorldRows
    programs: list[tuple[Check[Trace], frozenset[str]]] = field(default_factory=list)

    @classmethod
    @contextmanager
    def open(cls, ctx: RunContext) -> Iterator[EventDeps]:
        """Read the run's background world (built and checked once, see `background`), and open the process's
        scratch copy of it, removed on exit."""
        env = ctx.environment
        tables = Tables(env.tables)
        background = build_background(ctx)
        world = BackgroundWorld.load(env, background, tables)
        samples = describe_samples(world, per_table=ctx.config.populate.sample_rows, seed=str(ctx.config.seed))
        llm = ctx.llms["populate"]
        # On the embedded model the rewritten texts and the constraints and values steps were most of
        # the stage's output tokens, and added nothing: the texts came back copied without a symbol,
        # and the rules restated the plan's symbols ("user_id: U1").
        lean = on_locally(ctx.config.populate.lean, llm.spec.provider)
        # Lean, the calls read the scenario's own rules, not the whole document: on the embedded model it
        # was a third of every prompt, read cold by the first plan, and each token of context slows writing.
        prompt = render("populate/world_lean" if lean else "populate/world", policy=env.policy,
                        tables=describe_tables(tables), counts=describe_counts(world))
        drafts = on_locally(ctx.config.populate.drafted_outcomes, llm.spec.provider)
        catalog = ctx.folder.policies.load()
        policies = {policy.id: policy.text for policy in catalog.policies} if catalog else {}
        programs = [(found, frozenset(catalog.checks.get(found.name, []))) for found in catalog_checks(catalog)
                    ] if catalog else []
        with ScratchWorld.open(background) as scratch:
            yield cls(ctx=ctx, env=env, tables=tables, world=world, scratch=scratch,
                      world_prompt=str(prompt[0].content), samples=samples, llm=llm, lean=lean, drafts=drafts,
                      policies=policies,
                      background_rows=WorldRows(env, background), programs=programs)

    def messages(self, step: str, **values: Any) -> list[BaseMessage]:
        """A step's prompt, after the shared description of the world."""
        return render(f"populate/{step}", world=self.world_prompt, **values)

    @staticmethod
    def stored(scenario: Scenario) -> str:
        """Where the event's world is stored, relative to the run: its rows over the background world."""
        return RunFolder.event_worlds.stored(scenario.id)

    def seed(self, scenario: Scenario) -> str:
        """The seed of every random choice for this event."""
        return f"{self.ctx.config.seed}:{scenario.id}"

    def checks_for(self, event: Event) -> list[Check[Trace]]:
        """The checks an event's expected outcome is held to: the domain's own, and the rules and compiled
        assertions that enforce one of the event's policies."""
        return [*self.env.checks, *(found for found, enforced in self.programs if enforced & set(event.policies))]

    def rules_of(self, scenario: Scenario) -> str:
        """The texts of the scenario's policies, one a line."""
        return "\n".join(self.policies.get(policy_id, "") for policy_id in scenario.policies)


def claim_note(scenario: Scenario) -> str:
    """What the plan prompt adds for a user who will make a false claim: that the truth must not entitle them
    (nothing for another user)."""
    if scenario.persona is None or not scenario.persona.claims:
        return ""
    return "\n\n" + prompt_text("populate/plan_claim")


def entitled_note(scenario: Scenario) -> str:
    """What the plan prompt adds for a scenario whose user is entitled to a change: that the rows must let the
    change be made (nothing for a refusal)."""
    if scenario.entitled is None:
        return ""
    return "\n\n" + prompt_text("populate/plan_entitled", request=scenario.entitled.request,
                                  tool=scenario.entitled.tool)


async def planned(deps: EventDeps, scenario: Scenario) -> Plan:
    """The scenario's entities and rows, as symbols (and, unless lean, its texts with them)."""
    messages = deps.messages("plan", description=scenario.description,
                             expected_behaviour=scenario.expected_behaviour, rules=deps.rules_of(scenario),
                             persona=entitled_note(scenario) + claim_note(scenario), **example_names(deps.tables))
    answer = await deps.llm.answer(messages, plan_model(deps.tables, lean=deps.lean), step="populate/plan")
    # A tool that is not the domain's acts on nothing here: the outcome's drafting reports it.
    acted_on = deps.env.required_arguments(scenario.entitled.tool if scenario.entitled else None)
    return Plan.from_answer(answer, deps.tables, deps.world, acted_on=acted_on)


async def constrained(deps: EventDeps, plan: Plan) -> Constraints:
    """The rules the policy puts on the plan's values, for the outcome the scenario expects."""
    schema = constraints_model(tuple((row.label, row.table) for row in plan.rows), deps.tables)
    answer = await deps.llm.answer(deps.messages("constraints", plan=plan.describe()), schema,
                                   step="populate/constraints")
    return Constraints.from_answer(answer, plan)


async def assigned(deps: EventDeps, plan: Plan, constraints: Constraints) -> Assignment:
    """The values the rules are about, from the model; none asked when no rule fixes a value (all generated)."""
    asked = plan.asked_values(deps.tables, constraints)
    assignment = Assignment()
    if asked.empty:
        return assignment
    messages = deps.messages("values", plan=plan.describe(), constraints=constraints.describe_rules(),
                             details=constraints.describe_details(), samples=deps.samples)
    answer = await deps.llm.answer(messages, ValuesSchema(deps.tables, asked.rows, asked.symbols, name="RowValues"),
                                   step="populate/values")
    assignment.update(answer, labels=plan.labels)
    return assignment


async def repaired(deps: EventDeps, plan: Plan, constraints: Constraints, assignment: Assignment,
                   rows: list[AssembledRow], rejections: list[Rejection]) -> bool:
    """The rejected rows' governed values asked again, in `assignment`; whether the answer changed any."""
    labels = [rejection.label for rejection in rejections]
    asked = plan.asked_repairs(deps.tables, labels, constraints)
    messages = deps.messages("repair", plan=plan.describe(), constraints=constraints.describe_rules(),
                             rejected=describe_rejected(rows, rejections), samples=deps.samples)
    answer = await deps.llm.answer(messages, ValuesSchema(deps.tables, asked.rows, asked.symbols, name="RowRepairs"),
                                   step="populate/repair")
    return assignment.update(answer, labels=plan.labels, empty_clears=True)


class Checked(NamedTuple):
    """An attempt at the event's rows: the rows, those a rule rejected, and the event once none was."""

    rows: list[AssembledRow]
    rejections: list[Rejection]
    event: Event | None


def checked(deps: EventDeps, scenario: Scenario, plan: Plan, assignment: Assignment, constraints: Constraints,
            *, repairs: int, dropped: list[str], draw: int = 0) -> Checked:
    """Assemble the rows, then validate and insert them into the background world's scratch copy; with no row
    rejected, the event's world is stored as its difference from the background, and the event made.

    `draw` counts the times the event's world was drawn anew (see `rows.draw_anew`): each draw generates the values
    and picks the rows the plan leaves open under a seed of its own."""
    seed = f"{deps.seed(scenario)}:draw {draw}" if draw else deps.seed(scenario)
    assembly = assemble(plan, assignment, tables=deps.tables, world=deps.world, seed=seed)
    with deps.scratch.attempt() as session:
        inserted, rejections = insert_rows(deps.env, deps.tables, session, assembly.rows)
        if rejections:
            return Checked(assembly.rows, rejections, None)
        known, own_side = user_rows(inserted)  # read before the attempt's rollback expires the rows
        found = deps.scratch.changes(tables={row.table for row in assembly.rows})
    background = deps.ctx.folder.path(BACKGROUND)
    worlds.save_delta(deps.ctx.folder.path(deps.stored(scenario)), base=background, found=found)
    description, expected = final_texts(scenario, plan, constraints, assembly.symbols)
    claims = scenario.persona is not None and scenario.persona.claims
    claim = false_claim(known, tables=deps.tables, world=deps.world, rules=deps.rules_of(scenario),
                        seed=deps.seed(scenario)) if claims else None
    event = Event(
        id=scenario.id,
        policies=scenario.policies,
        challenge=scenario.challenge,
        scenario=description,
        expected_behaviour=expected,
        symbols=assembly.symbols.as_text(),
        user_rows=known,
        user_side_rows=own_side,
        database=deps.stored(scenario),
        digest=worlds.digest(found, background),
        repairs=repairs,
        dropped=[*dropped, *assembly.dropped],
        persona=scenario.persona,
        claim=claim,
        entitled=scenario.entitled,
    )
    return Checked(assembly.rows, [], event)


def failed_event(folder: RunFolder, scenario: Scenario, reason: str, *, repairs: int = 0) -> Event:
    """The record of a scenario whose event could not be made; what the attempt left in the run folder (its
    stored worlds) is removed."""
    folder.path(EventDeps.stored(scenario)).unlink(missing_ok=True)
    folder.path(RunFolder.expected_worlds.stored(scenario.id)).unlink(missing_ok=True)
    return Event(id=scenario.id, status="error", error=reason, policies=scenario.policies,
                 challenge=scenario.challenge, repairs=repairs, persona=scenario.persona)
