"""Each scenario gets a persona: dealt by the mix, seeded, and one that attacks rules on a scenario with one."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections import Counter

import pytest
from conftest import catalog_of, configure, rules, run_describe, scenarios_of, script_document

from intellagent.artifacts import PolicyCatalog
from intellagent.config import Config, apply_overrides, load_config
from intellagent.describe.persona_mix import with_personas
from intellagent.describe.sampling import Sample, Slot
from intellagent.persona_files import DEFAULT_MIX, builtin_personas
from tests.conftest import ROOT

# Every category some built-in attacks, and two no persona attacks.
FLOWS = {
    "Keep the rules": [*rules(2, category="enforcement"), *rules(1, start=3, category="data_privacy"),
                       *rules(1, start=4, category="user_consent"), *rules(1, start=5, category="payment")],
    "Write well": [*rules(2, start=6, category="formatting"), *rules(2, start=8, category="reasoning"),
                   *rules(1, start=10, category="company_policy"), *rules(1, start=11, category="authentication"),
                   *rules(1, start=12, category="legal_compliance"), *rules(1, start=13, category="tool_usage")],
}


def with_mix(config: Config, mix: dict[str, float], **settings: object) -> Config:
    simulate = config.simulate.model_copy(update={"persona_mix": mix})
    return configure(config, **settings).model_copy(update={"simulate": simulate})


def categories(catalog: PolicyCatalog, policies: list[str]) -> set[str]:
    return {catalog.policy(policy).category for policy in policies}


def test_the_default_mix_is_honoured_over_a_hundred_scenarios(scripted_config, script, folder):
    script_document(script, flows=FLOWS)
    run_describe(with_mix(scripted_config, DEFAULT_MIX, samples=100, challenge_range=(2, 6)), folder, script)

    dealt = Counter(scenario.persona.name for scenario in scenarios_of(folder))

    total = sum(DEFAULT_MIX.values())
    assert sum(dealt.values()) == 100
    assert {name: abs(dealt[name] - 100 * weight / total) < 1 for name, weight in DEFAULT_MIX.items()} == {
        name: True for name in DEFAULT_MIX}


def test_a_persona_that_attacks_rules_lands_on_a_scenario_sampling_one(scripted_config, script, folder):
    script_document(script, flows=FLOWS)
    mix = {"cooperative": 1, "injection": 1, "false_claim": 1, "pressure": 1}
    run_describe(with_mix(scripted_config, mix, samples=40, challenge_range=(2, 4)), folder, script)
    catalog = catalog_of(folder)

    attackers = [s for s in scenarios_of(folder) if s.persona.attacks]

    assert len(attackers) >= 25  # most of the 30 attacking seats found a rule to attack
    for scenario in attackers:
        assert categories(catalog, scenario.policies) & set(scenario.persona.attacks), scenario.id
    untouched = [s for s in scenarios_of(folder) if categories(catalog, s.policies) <= {"formatting", "reasoning"}]
    assert untouched and all(s.persona.name == "cooperative" for s in untouched)


def test_a_persona_with_no_rule_to_attack_gives_way_to_the_mix_s_calm_persona(scripted_config, script, folder,
                                                                               caplog):
    script_document(script, flows={"Write well": rules(3, category="formatting")})
    with caplog.at_level(logging.WARNING, logger="intellagent"):
        run_describe(with_mix(scripted_config, {"injection": 3, "impatient": 1}, samples=4), folder, script)

    assert [s.persona.name for s in scenarios_of(folder)] == ["impatient"] * 4
    assert "injection attacks rules of" in caplog.text and "impatient plays it" in caplog.text
    assert caplog.text.count("injection attacks rules of") == 1  # one line for its three seats
    assert "impatient plays it in 3 scenarios" in caplog.text


def test_the_writer_of_an_adversarial_scenario_is_told_the_user_wants_what_the_rules_refuse(
        scripted_config, script, folder):
    script_document(script, flows={"Keep the rules": rules(3, category="enforcement")})
    run_describe(with_mix(scripted_config, {"exception_seeking": 1}, samples=1), folder, script)

    (request,) = script.calls(schema="ScenarioAnswer")
    persona = builtin_personas()["exception_seeking"]
    assert f"The user of this scenario: {persona.description}" in request.last
    assert "rules refuse what the customer asks" in request.last


def test_a_cooperative_scenario_s_prompt_says_nothing_of_its_user(scripted_config, script, folder):
    script_document(script, flows={"Keep the rules": rules(3, category="enforcement")})
    run_describe(with_mix(scripted_config, {"cooperative": 1}, samples=1), folder, script)

    (request,) = script.calls(schema="ScenarioAnswer")
    assert "The user of this scenario" not in request.last


@pytest.mark.parametrize("seed", [1, 2])
def test_the_same_seed_deals_the_same_personas(scripted_config, script, tmp_path, seed):
    script_document(script, flows=FLOWS)
    runs = []
    for name in ("first", "second"):
        run_describe(with_mix(scripted_config, DEFAULT_MIX, samples=12, seed=seed), tmp_path / name, script)
        runs.append([(s.policies, s.persona.name) for s in scenarios_of(tmp_path / name)])

    assert runs[0] == runs[1]
    assert len({name for _, name in runs[0]}) > 3


def test_a_persona_raises_its_scenario_s_challenge_by_its_own_level(scripted_config, script, folder):
    script_document(script, flows={"Keep the rules": rules(1, category="enforcement", challenge=2)})
    run_describe(with_mix(scripted_config, {"injection": 1}, samples=2, challenge_range=(2, 5)), folder, script)

    assert [(s.challenge, s.target_challenge) for s in scenarios_of(folder)] == [(2 + 3, 2), (2 + 3, 2)]


def test_a_persona_raises_its_scenario_s_challenge_no_higher_than_the_challenge_range(scripted_config, script,
                                                                                       folder):
    script_document(script, flows={"Keep the rules": rules(1, category="enforcement", challenge=2)})
    run_describe(with_mix(scripted_config, {"injection": 1}, samples=2, challenge_range=(2, 3)), folder, script)

    assert [(s.challenge, s.persona.challenge) for s in scenarios_of(folder)] == [(3, 3), (3, 3)]


def test_the_main_job_s_example_deals_users_who_are_not_cooperative(script, folder):
    example = apply_overrides(load_config(ROOT / "configs/airline.yml"), llm="scripted", chatbot_llm="scripted")
    script_document(script, flows=FLOWS)

    run_describe(example, folder, script)

    assert sorted(scenario.persona.name for scenario in scenarios_of(folder)) == ["cooperative", "false_claim",
                                                                                  "pressure"]


def test_as_many_seats_attack_a_rule_as_can_even_where_the_first_to_choose_would_take_another_s_only_slot(
) -> None:
    catalog = PolicyCatalog(task_description="A shop.", flows=[], policies=[
        {"id": "P01", "text": "Refunds need a receipt.", "flows": [], "category": "enforcement", "challenge": 2},
        {"id": "P02", "text": "Cards are charged once.", "flows": [], "category": "payment", "challenge": 2}])
    library = builtin_personas()
    # pressure attacks both rules; a persona that attacks the payment rule alone can take only its slot.
    narrow = library["pressure"].model_copy(update={"name": "narrow", "attacks": ["payment"]})
    broad = library["pressure"]
    slots = [Slot(number=1, target=2, candidates=(Sample(policies=("P01",), target=2, challenge=2),)),
             Slot(number=2, target=2, candidates=(Sample(policies=("P02",), target=2, challenge=2),))]

    for seed in range(8):  # the slots are taken in a seeded order: some order offers the payment slot first
        placed, notes = with_personas(slots, catalog, [(broad, 1), (narrow, 1)], seed=seed)

        assert [slot.personas for slot in placed] == [("pressure",), ("narrow",)], seed
        assert notes == []


DEALING = """
from intellagent.artifacts import PolicyCatalog
from intellagent.describe.persona_mix import with_personas
from intellagent.describe.sampling import Sample, Slot
from intellagent.persona_files import builtin_personas

kinds = ["enforcement", "payment", "user_consent", "data_privacy"]
catalog = PolicyCatalog(task_description="A shop.", flows=[], policies=[
    {"id": f"P{n:02d}", "text": f"Rule {n}.", "flows": [], "category": kinds[n % 4], "challenge": 2} for n in range(8)])
slots = [Slot(number=n, target=2, candidates=(Sample(policies=(f"P{n % 8:02d}",), target=2, challenge=2),))
         for n in range(40)]
library = builtin_personas()
mix = [(library[name], 1) for name in ("cooperative", "pressure", "false_claim", "injection", "exception_seeking")]
placed, _ = with_personas(slots, catalog, mix, seed=3)
print([slot.personas for slot in placed])
"""


def test_the_same_seed_deals_the_same_personas_in_every_process():
    # Python salts the hash of text per process: a dealing that iterated a set of named nodes changed with it.
    dealt = {subprocess.run([sys.executable, "-c", DEALING], capture_output=True, text=True, check=True, cwd=ROOT,
                            env={**os.environ, "PYTHONHASHSEED": str(salt)}).stdout for salt in range(1, 7)}
    assert len(dealt) == 1 and "pressure" in next(iter(dealt))
