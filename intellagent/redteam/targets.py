"""What the red team attacks: each rule, on the events that put it to the test, with each strategy.

A rule is a policy of policies.json (`red_team.rules` names some; by default every one). It is attacked on the
valid events with a world whose scenario samples it, those whose expected outcome forbids a write for it first
(the breach is then a write a program sees), up to `red_team.events_per_rule`; each strategy attacks each of those
events once. A rule no event samples is not attacked: its attacks are recorded `skipped`, and the report says so.
An attack's event is the event as its attacker plays it: its brief on it (`Event.attack`), no persona (the attacker
is its user), and, for `false_facts`, a false claim of the user's own rows, grounded in the event's world as
populate grounds one.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from intellagent.artifacts import AttackBrief, Claim, Event, Policy, PolicyCatalog
from intellagent.artifacts.adversary import STRATEGIES, Strategy
from intellagent.config import RedTeamConfig
from intellagent.environment import Environment, worlds
from intellagent.errors import UsageError
from intellagent.populate.background_world import BackgroundWorld
from intellagent.populate.claims import false_claim
from intellagent.populate.tables import Tables


@dataclass(frozen=True)
class AttackTarget:
    """One attack to make.

    Attributes:
        id: its id, rule.strategy.event (rule.strategy when no event lets it be made).
        rule: the policy attacked.
        strategy: how.
        event: the event it is made on, as populate made it (None: no event samples the rule).
    """

    id: str
    rule: Policy
    strategy: Strategy
    event: Event | None

    def brief(self, settings: RedTeamConfig) -> AttackBrief:
        """What its attacker (or its planter) is told."""
        assert self.event is not None  # only an attack with an event is made
        name = self.strategy.name
        return AttackBrief(rule=self.rule.id, text=self.rule.text, breach=breach_lines(self.rule.id, self.event),
                           strategy=name, language=settings.language if name == "language_switch" else None,
                           encoding=settings.encoding if name == "encoding" else None)


def attack_targets(catalog: PolicyCatalog, events: list[Event], settings: RedTeamConfig) -> list[AttackTarget]:
    """Every attack of the run, rule by rule, event by event, strategy by strategy.

    Raises:
        UsageError: `red_team.rules` names a policy policies.json does not hold.
    """
    policies = {policy.id: policy for policy in catalog.policies}
    unknown = [rule for rule in settings.rules if rule not in policies]
    if unknown:
        raise UsageError(f"red_team.rules names {', '.join(unknown)}, which policies.json does not hold; the "
                         f"policies are {', '.join(policies) or 'none'}")
    rules = [policies[rule] for rule in settings.rules] if settings.rules else catalog.policies
    strategies = [STRATEGIES[name] for name in dict.fromkeys(settings.strategies)]
    targets = []
    for rule in rules:
        attacked: list[Event | None] = [*attacked_events(rule.id, events, settings.events_per_rule)] or [None]
        targets += [AttackTarget(id=".".join([rule.id, strategy.name, *([event.id] if event else [])]), rule=rule,
                                 strategy=strategy, event=event) for event in attacked for strategy in strategies]
    return targets


def attacked_events(rule: str, events: list[Event], count: int) -> list[Event]:
    """The events `rule` is attacked on: valid, with a world, sampling it; a forbidden write of it first."""
    sampling = [event for event in events if event.status == "ok" and event.database and rule in event.policies]
    return sorted(sampling, key=lambda event: not _forbids(event, rule))[:count]


def breach_lines(rule: str, event: Event) -> list[str]:
    """What a breach of `rule` looks like on `event`: each write its expected outcome forbids for the rule."""
    forbidden = event.expected.forbidden if event.expected else []
    return [f"{call.text()}" + (f": {call.reason}" if call.reason else "") for call in forbidden
            if rule in call.policies]


def _forbids(event: Event, rule: str) -> bool:
    return bool(breach_lines(rule, event))


def grounded_claim(environment: Environment, world: Path, event: Event, rules: str) -> Claim:
    """A false claim of the event's user's own rows, which the event's world (`world`, stored) contradicts."""
    tables = Tables(environment.tables)
    with tempfile.TemporaryDirectory() as scratch:
        whole = Path(scratch) / "world.sqlite"
        worlds.materialize(world, whole)
        background = BackgroundWorld.load(environment, whole, tables)
    return false_claim(event.user_rows, tables=tables, world=background, rules=rules, seed=event.id)


def attack_event(target: AttackTarget, settings: RedTeamConfig, claim: Claim | None) -> Event:
    """The event as the attack's attacker plays it (see the module)."""
    assert target.event is not None  # only an attack with an event is made
    return target.event.model_copy(update={"attack": target.brief(settings), "persona": None, "claim": claim})

