"""Which rules of a rules file a run uses, and which it refuses, each with a one-line reason.

A rule is refused when a person discarded it, when a name it uses is not the domain's (or does not fit its use,
`describe.name_checks`), when its citation does not stand (`citations`), or when it fails its own examples
(`examples`); it is never refused because a model's expected outcome disagrees with it (an outcome that breaks a
rule is repaired or dropped instead). A procedure given as a flowchart file is read first (`chart_procedures`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from intellagent.artifacts import PolicyCatalog, Rule, RulesFile
from intellagent.artifacts.rules import Procedure, RefusedRule, RuleInForce
from intellagent.describe.name_checks import Names
from intellagent.describe.vocabulary import Vocabulary
from intellagent.describe.workflows import flowcharts
from intellagent.environment import Environment
from intellagent.rules.chart_procedures import chart_procedure
from intellagent.rules.citations import citation_problems, enforced_policies
from intellagent.rules.examples import example_problems


@dataclass
class Reviewed:
    """The rules a run may use, and those refused."""

    held: list[Rule] = field(default_factory=list)
    refused: list[RefusedRule] = field(default_factory=list)


def reviewed(rules: RulesFile, environment: Environment, *, folder: Path) -> Reviewed:
    """Each rule of `rules` held or refused (see the module); `folder` is the rules file's, which a procedure's
    flowchart file is relative to."""
    vocabulary = Vocabulary.of(environment)
    names = Names(vocabulary)
    found = Reviewed()
    seen: set[str] = set()
    for rule in rules.rules:
        if rule.id in seen:
            found.refused.append(RefusedRule(id=rule.id, reason="another rule has the same id"))
            continue
        seen.add(rule.id)
        read, problems = _read_chart(rule, vocabulary, folder)
        problems = problems or _problems(read, environment, names)
        if problems:
            found.refused.append(RefusedRule(id=rule.id, reason="; ".join(problems)))
        else:
            found.held.append(read)
    return found


def _problems(rule: Rule, environment: Environment, names: Names) -> list[str]:
    if rule.discarded:
        return [f"discarded: {rule.discarded}"]
    return (names.problems(rule, rule.scope.tools) or citation_problems(rule, environment.policy)
            or list(example_problems(rule, environment)))


def _read_chart(rule: Rule, vocabulary: Vocabulary, folder: Path) -> tuple[Rule, list[str]]:
    """A procedure rule with the steps and orders of its flowchart file, if it names one."""
    if not isinstance(rule, Procedure) or rule.dot is None:
        return rule, []
    path = folder / rule.dot
    if not path.is_file():
        return rule, [f"its flowchart {rule.dot} is not found beside the rules file"]
    charts = flowcharts(path.read_text(encoding="utf-8"))
    if not charts or not charts[0].nodes:
        return rule, [f"{rule.dot} holds no flowchart"]
    procedure, notes = chart_procedure(charts[0], vocabulary, flow=rule.flow)
    unknown = [note for note in notes if "is not a tool" in note]
    if unknown or procedure is None:
        return rule, unknown or [f"{rule.dot} holds no step"]
    return rule.model_copy(update={"steps": procedure.steps, "edges": procedure.edges}), []


def in_force(held: list[Rule], catalog: PolicyCatalog, document: str) -> list[RuleInForce]:
    """The rules a run uses, each with the run's policies it enforces."""
    return [RuleInForce(rule=rule, policies=enforced_policies(rule, catalog, document)) for rule in held]
