"""Scenarios: one per sample, failures recorded and redrawn, optional refinement, byte-stable artifacts."""

from __future__ import annotations

import pytest
from conftest import catalog_of, configure, rules, run_describe, scenario_reply, scenarios_of, script_document

from intellagent.llm import HTTPError, ScriptedLLM

FLOWS = {"Orders": rules(4, challenge=2), "Refunds": rules(4, start=5, challenge=3)}


def test_each_sample_becomes_a_scenario(scripted_config, script, folder):
    script_document(script, flows=FLOWS)
    run_describe(configure(scripted_config, samples=3), folder, script)
    scenarios = scenarios_of(folder)
    challenge = {p.id: p.challenge for p in catalog_of(folder).policies}
    assert [s.id for s in scenarios] == ["S001", "S002", "S003"]
    for scenario in scenarios:
        assert scenario.status == "ok" and scenario.policies
        rules_challenge = sum(challenge[p] for p in scenario.policies)
        assert rules_challenge >= scenario.target_challenge
        assert scenario.persona is not None  # which raises the challenge, up to the range's top
        top = scripted_config.describe.challenge_range[1]
        assert scenario.challenge == min(rules_challenge + scenario.persona.challenge, max(rules_challenge, top))
        assert scenario.description.startswith("A customer whose situation touches")
    assert len({tuple(s.policies) for s in scenarios}) == 3


def test_the_scenario_prompt_lists_the_sampled_rules_without_ids(scripted_config, script, folder):
    script_document(script, flows=FLOWS)
    run_describe(configure(scripted_config, samples=1), folder, script)
    (scenario,) = scenarios_of(folder)
    (request,) = script.calls(schema="ScenarioAnswer")
    texts = {p.id: p.text for p in catalog_of(folder).policies}
    assert all(f"- {texts[p]}" in request.last for p in scenario.policies)
    assert "P0" not in request.text
    assert "A shop assistant that handles orders and refunds." in request.last


@pytest.mark.parametrize("failure", ["not json", HTTPError(500)], ids=["invalid-answer", "http-error"])
def test_a_failed_scenario_is_redrawn_from_another_sample(scripted_config, script, folder, failure):
    calls = []

    def first_fails(request):
        calls.append(request.last)
        return failure if len(calls) == 1 else scenario_reply(request)

    script_document(script, flows=FLOWS, scenario=first_fails)
    run_describe(configure(scripted_config, samples=1, llm_retries=0), folder, script)
    (scenario,) = scenarios_of(folder)
    assert scenario.status == "ok"
    first, retried = script.calls(schema="ScenarioAnswer")[0], script.calls(schema="ScenarioAnswer")[-1]
    assert first.last != retried.last  # a new policy set, not the same request again


@pytest.mark.parametrize("failure", ["not json", HTTPError(500)], ids=["invalid-answer", "http-error"])
def test_a_slot_failing_every_attempt_is_recorded_as_an_error(scripted_config, script, folder, failure):
    script_document(script, flows=FLOWS, scenario=failure)
    config = configure(scripted_config, samples=1, max_attempts=2, llm_retries=0)
    run_describe(config, folder, script)
    (scenario,) = scenarios_of(folder)
    assert scenario.status == "error" and scenario.policies and scenario.description == ""
    assert ("ScenarioAnswer" if failure == "not json" else "scripted failure") in scenario.error
    tries = config.parse_retries + 1 if failure == "not json" else 1
    assert len(script.calls(schema="ScenarioAnswer")) == 2 * tries


def test_writing_goes_on_until_the_requested_number_is_valid(scripted_config, script, folder):
    failing = iter([True, False, True, False, False])
    script_document(script, flows=FLOWS,
                    scenario=lambda request: "not json" if next(failing) else scenario_reply(request))
    run_describe(configure(scripted_config, samples=3, workers=1, parse_retries=0), folder, script)
    assert [s.status for s in scenarios_of(folder)] == ["ok", "ok", "ok"]
    assert len(script.calls(schema="ScenarioAnswer")) == 5


def test_refinement_corrects_the_expected_behaviour(scripted_config, script, folder):
    script.on(
        schema="RefineAnswer", reply={"correct": False, "corrected": "Refuse the refund: the order was paid in cash."}
    )
    script_document(script, flows=FLOWS)
    run_describe(configure(scripted_config, samples=1, refine=True), folder, script)
    (scenario,) = scenarios_of(folder)
    assert (scenario.refined, scenario.expected_behaviour) == (True, "Refuse the refund: the order was paid in cash.")
    (request,) = script.calls(schema="RefineAnswer")
    assert "Always greet the customer." in request.system  # checked against the whole document
    assert scenario.description in request.last


def test_refinement_keeps_a_correct_expected_behaviour(scripted_config, script, folder):
    script.on(schema="RefineAnswer", reply={"correct": True, "corrected": ""})
    script_document(script, flows=FLOWS)
    run_describe(configure(scripted_config, samples=1, refine=True), folder, script)
    (scenario,) = scenarios_of(folder)
    assert not scenario.refined and scenario.expected_behaviour.startswith("The assistant keeps every one")


def varied_weight(scorer: str, other: str) -> int:
    return (int(scorer[1:]) * int(other[1:])) % 11


def test_the_same_seed_gives_byte_identical_artifacts(scripted_config, tmp_path):
    for name in ("a", "b"):
        run_describe(configure(scripted_config, samples=4), tmp_path / name,
                     script_document(ScriptedLLM(), flows=FLOWS, weight=varied_weight))
    for artifact in ("policies.json", "graph.json", "scenarios.jsonl"):
        assert (tmp_path / "a" / artifact).read_bytes() == (tmp_path / "b" / artifact).read_bytes()


def test_another_seed_gives_other_samples(scripted_config, script, tmp_path):
    script_document(script, flows=FLOWS)
    run_describe(configure(scripted_config, samples=4, seed=1), tmp_path / "a", script)
    run_describe(configure(scripted_config, samples=4, seed=2), tmp_path / "b", script)
    samples = [[s.policies for s in scenarios_of(tmp_path / name)] for name in ("a", "b")]
    assert samples[0] != samples[1]
