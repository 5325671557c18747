"""Where a run's scenarios come from: what describe writes them from, and the world populate makes them in.

By default they are sampled (`SampledScenarios`): policy sets drawn from the policy graph by weighted
random walks that reach a target challenge level, a scenario written for each, and a world populated
for each over the run's background world. τ-bench mode plays its published tasks instead
(`intellagent.tau.task_scenarios`). Which a run uses is decided in one place, `intellagent.modes`.

Describe asks the source for its plan, then writes the scenarios round by round (a failed one may be
tried again with another candidate, a repeated policy set waits for the scenarios planned before it);
each scenario is recorded whether it was written or not.
"""

from __future__ import annotations

from collections.abc import Sized
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import networkx as nx

from intellagent import text_limits
from intellagent.artifacts import Event, Persona, PolicyCatalog, Scenario
from intellagent.config import Config
from intellagent.context import RunContext, log
from intellagent.describe.persona_mix import with_personas
from intellagent.describe.sampling import Slot, challenge_levels, plan_samples
from intellagent.describe.scenario_writing import (
    AnotherScenario,
    RefineAnswer,
    describe_changes,
    earlier_note,
    earlier_scenarios,
    entitlement,
    pending_attempts,
    persona_note,
    rule_list,
    scenario_answer,
    scenario_id,
    unwritten,
)
from intellagent.llm import LLM
from intellagent.outcomes.answer import world_tools
from intellagent.populate.background import build_background
from intellagent.prompt_files import render

P = TypeVar("P", bound=Sized)
J = TypeVar("J")


class ScenarioSource(Protocol[P, J]):
    """The run's scenarios: the plan of them (`P`, data that travels in describe's state, as long as the
    scenarios it plans), each one to write (`J`), and the world their events are made in."""

    def planned(self, catalog: PolicyCatalog, graph: nx.Graph) -> tuple[P, PolicyCatalog]:
        """Every scenario the run plans, and the catalog with what the plan notes in it (policies.json is
        written again when it changed)."""
        ...

    def wanted(self, plan: P) -> int:
        """How many scenarios the run asks for (a shortfall is reported)."""
        ...

    def pending(self, plan: P, records: dict[str, Scenario], *, first: bool) -> list[J]:
        """The scenarios to write now, given the latest record of each one written so far: on the `first`
        round, those with no valid record that may be written at once; on a later one, those that may be
        written now (tried again, or waiting for the ones planned before them until then)."""
        ...

    def unwritten(self, plan: P, records: dict[str, Scenario], *, first: bool) -> int:
        """How many scenarios are still to write, now and in later rounds (the stage's bar counts them)."""
        ...

    async def written(self, job: J, catalog: PolicyCatalog) -> Scenario:
        """One scenario, written; an exception is its failure."""
        ...

    def failed(self, job: J, reason: str) -> Scenario:
        """The record of a scenario that could not be written."""
        ...

    @staticmethod
    def check(config: Config) -> None:
        """Before the run starts: what the settings get wrong about the scenarios' source, as a `UsageError`."""
        ...

    def prepare(self) -> None:
        """Before the run's first call: the world its events start from, built and checked."""
        ...

    def ready_events(self, scenarios: list[Scenario]) -> list[Event]:
        """The events of those scenarios that need no populating (their world is the source's own)."""
        ...


Attempt = tuple[Slot, int, list[str]]
"""A slot of the sampling plan, which of its candidate policy sets to write a scenario for, and the
descriptions of the scenarios planned before it for the same set."""


@dataclass(frozen=True)
class SampledScenarios:
    """Scenarios of policy sets sampled from the policy graph, each populated with a world of its own."""

    ctx: RunContext

    def planned(self, catalog: PolicyCatalog, graph: nx.Graph) -> tuple[list[Slot], PolicyCatalog]:
        """One slot per scenario asked for (`samples`), its target among the challenge levels of
        `describe.challenge_range` some policy set reaches (noted in the catalog), each slot with its
        candidate policy sets in order and the persona of each (`simulate.persona_mix`)."""
        config = self.ctx.config
        levels = challenge_levels(graph, config.describe.challenge_range)
        if levels.narrowed:
            log.warning("describe: challenge levels %s of describe.challenge_range [%d, %d] are sampled: %s",
                        ", ".join(map(str, levels.levels)), *levels.configured, levels.narrowed)
        if catalog.challenge_levels != levels:
            catalog = catalog.model_copy(update={"challenge_levels": levels})
        slots = plan_samples(graph, count=config.samples, levels=levels.levels, attempts=config.describe.max_attempts,
                             seed=config.seed)
        slots, unplaced = with_personas(slots, catalog, config.simulate.weighted_personas(), seed=config.seed)
        for note in unplaced:
            log.warning("describe: a scenario's persona: %s", note)
        return slots, catalog

    def wanted(self, plan: list[Slot]) -> int:
        """`samples`."""
        return self.ctx.config.samples

    def pending(self, plan: list[Slot], records: dict[str, Scenario], *, first: bool) -> list[Attempt]:
        """Every slot with no valid scenario yet and a candidate left, whose policy set has no scenario planned
        before it still to write, with those written before it for the same set."""
        return [(slot, attempt, earlier_scenarios(slot.candidates[attempt], records))
                for slot, attempt in pending_attempts(plan, records)]

    def unwritten(self, plan: list[Slot], records: dict[str, Scenario], *, first: bool) -> int:
        """The slots with no valid scenario yet and a candidate left."""
        return len(unwritten(plan, records))

    async def written(self, job: Attempt, catalog: PolicyCatalog) -> Scenario:
        """The scenario of a slot's candidate set: what the user wants and what the chatbot must do, another
        than those written before it for the same set, and checked against the whole document when
        `describe.refine` asks for it."""
        slot, attempt, earlier = job
        sample = slot.candidates[attempt]
        policies = [catalog.policy(policy_id) for policy_id in sample.policies]
        persona = self._persona(job)
        llm = self.ctx.llms["scenarios"]
        changes = [tool for tool in world_tools(self.ctx.environment) if tool.writes]
        messages = render("describe/scenario", task_description=catalog.task_description,
                          changes=describe_changes(changes), policies=rule_list(policies),
                          earlier=earlier_note(sample, earlier), persona=persona_note(persona))
        schema = scenario_answer(tuple(tool.name for tool in changes))
        answer = await llm.answer(messages, AnotherScenario(schema, earlier) if earlier else schema,
                                  step="describe/scenario")
        scenario = Scenario(
            **_identity(job, persona, self._top),
            description=text_limits.trimmed(answer.description, text_limits.SCENARIO),
            expected_behaviour=text_limits.trimmed(answer.expected_behaviour, text_limits.SCENARIO),
            entitled=entitlement(answer),
        )
        if self.ctx.config.describe.refine:
            scenario = await _refined(llm, self.ctx.environment.policy, scenario)
        return scenario

    def failed(self, job: Attempt, reason: str) -> Scenario:
        """The slot's record, with the candidate set it was for."""
        return Scenario(**_identity(job, self._persona(job), self._top), status="error", error=reason)

    @property
    def _top(self) -> int:
        """The highest challenge level the run asked for."""
        return self.ctx.config.describe.challenge_range[1]

    def _persona(self, job: Attempt) -> Persona | None:
        """The persona dealt to the candidate set the scenario is written for."""
        slot, attempt, _ = job
        return self.ctx.config.simulate.persona_library()[slot.personas[attempt]] if slot.personas else None

    @staticmethod
    def check(config: Config) -> None:
        """Nothing: the policy graph the sets are sampled from is the run's own."""

    def prepare(self) -> None:
        """The background world every event starts from: built and checked now, so that a domain whose own
        world breaks its rules is refused before any call is spent."""
        build_background(self.ctx)

    def ready_events(self, scenarios: list[Scenario]) -> list[Event]:
        """None: every event is populated."""
        return []


def _identity(job: Attempt, persona: Persona | None, top: int) -> dict[str, Any]:
    """What a slot's record holds whether its scenario was written or not: the persona raises the challenge of
    the policies by its own, up to `top`, the highest level of `describe.challenge_range`: a harder user makes a
    harder scenario, never one past the levels the run asked for (which the report's figures per level count)."""
    slot, attempt, _ = job
    sample = slot.candidates[attempt]
    raised = min(persona.challenge if persona else 0, max(top - sample.challenge, 0))
    return {"id": scenario_id(slot), "policies": list(sample.policies), "target_challenge": slot.target,
            "challenge": sample.challenge + raised, "repeat": sample.repeat, "persona": persona}


async def _refined(llm: LLM, document: str, scenario: Scenario) -> Scenario:
    """The scenario with its expected behaviour checked against the whole document, corrected if wrong."""
    messages = render("describe/refine", policy=document, description=scenario.description,
                      expected_behaviour=scenario.expected_behaviour)
    answer = await llm.answer(messages, RefineAnswer, step="describe/refine")
    if answer.correct:
        return scenario
    corrected = text_limits.trimmed(answer.corrected, text_limits.SCENARIO)
    return scenario.model_copy(update={"expected_behaviour": corrected, "refined": True})
