"""Documents of one rule, of three, and of none: every scenario asked for, or one line that says why there is
none."""

from __future__ import annotations

import pytest
from conftest import catalog_of, configure, rules, run_describe, scenarios_of, script_document

from intellagent.errors import RunAborted, UsageError
from intellagent.llm import HTTPError


def test_a_one_rule_document_gives_every_scenario_asked_for(scripted_config, script, folder):
    script_document(script, flows={"Orders": rules(1, challenge=2)})
    run_describe(configure(scripted_config, samples=4, challenge_range=(5, 10)), folder, script)

    scenarios = scenarios_of(folder)
    assert [(s.id, s.status, s.policies) for s in scenarios] == [(f"S00{n}", "ok", ["P01"]) for n in range(1, 5)]
    assert [s.repeat for s in scenarios] == [0, 1, 2, 3]
    assert len({s.description for s in scenarios}) == 4


def test_a_one_rule_document_notes_the_one_level_it_can_be_sampled_at(scripted_config, script, folder):
    script_document(script, flows={"Orders": rules(1, challenge=2)})
    run_describe(configure(scripted_config, samples=2, challenge_range=(5, 10)), folder, script)

    levels = catalog_of(folder).challenge_levels
    assert levels is not None and (levels.configured, levels.levels) == ((5, 10), [2])
    assert "reach only 2, below the range" in levels.narrowed
    assert {s.target_challenge for s in scenarios_of(folder)} == {2}


def test_a_three_rule_document_gives_every_scenario_asked_for_at_levels_its_sets_reach(scripted_config, script,
                                                                                     folder):
    script_document(script, flows={"Verify": [{"text": "Ask for the customer's email before anything else.",
                                               "category": "authentication", "challenge": 5}],
                                   "Refunds": [{"text": "Refund an order only within 30 days of its delivery.",
                                                "category": "payment", "challenge": 4},
                                               {"text": "Never share another customer's details with anyone.",
                                                "category": "data_privacy", "challenge": 5}]})
    run_describe(configure(scripted_config, samples=6, seed=1, challenge_range=(5, 10)), folder, script)

    scenarios = scenarios_of(folder)
    assert len(scenarios) == 6 and {s.status for s in scenarios} == {"ok"}
    assert {s.target_challenge for s in scenarios} <= {5, 9, 10}  # 6, 7 and 8 are the total of no set
    assert catalog_of(folder).challenge_levels.levels == [5, 9, 10]
    assert len({s.description for s in scenarios}) == 6


def test_a_document_with_no_rule_is_one_line_that_names_it(scripted_config, script, folder):
    script_document(script, flows={"Questions": [], "Orders": []})

    with pytest.raises(UsageError) as raised:
        run_describe(configure(scripted_config, samples=3), folder, script)

    message = str(raised.value)
    assert message.startswith(f"{scripted_config.environment.policy}: no rule found in this policy document")
    assert "any of its 2 flows" in message and "\n" not in message
    assert not (folder / "policies.json").exists()


def test_no_rule_because_every_extraction_failed_stops_the_run_to_be_resumed(scripted_config, script, folder):
    script_document(script, flows={"Orders": []})
    script.rules = [rule for rule in script.rules if rule.schema != "PoliciesAnswer"]
    script.on(schema="PoliciesAnswer", reply=HTTPError(500))

    with pytest.raises(RunAborted, match=r"no policy could be extracted from any flow; first failure: F1 \(Orders\)"):
        run_describe(configure(scripted_config, samples=1, llm_retries=0), folder, script)
