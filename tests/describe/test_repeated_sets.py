"""More scenarios than policy sets: a set repeats, each repeat with its own id and its own situation."""

from __future__ import annotations

from conftest import configure, rules, run_describe, scenario_reply, scenarios_of, script_document

from intellagent.llm import ScriptedLLM

ONE_RULE = {"Orders": rules(1, challenge=3)}
SAME = {"description": "A customer wants the order changed right away.", "entitled": None,
        "expected_behaviour": "Change it once asked."}
OTHER = {"description": "A customer asks for a refund of an old order.", "entitled": None,
         "expected_behaviour": "Refuse it, politely."}


def test_a_repeat_is_shown_the_scenarios_written_before_it_for_its_set(scripted_config, script, folder):
    script_document(script, flows=ONE_RULE)
    run_describe(configure(scripted_config, samples=3), folder, script)

    first, second, third = scenarios_of(folder)
    requests = [request.last for request in script.calls(schema="ScenarioAnswer")]
    assert "Other scenarios already test these rules" not in requests[0]
    assert first.description in requests[1] and second.description not in requests[1]
    assert first.description in requests[2] and second.description in requests[2]
    assert third.description not in (first.description, second.description)


def test_a_repeat_that_tells_an_earlier_scenario_again_is_sent_back_with_the_reason(scripted_config, script, folder):
    script_document(script, flows=ONE_RULE, scenario=SAME)
    script.rules = [rule for rule in script.rules if rule.schema != "ScenarioAnswer"]
    script.on(schema="ScenarioAnswer", replies=[SAME, SAME, OTHER])
    run_describe(configure(scripted_config, samples=2, workers=1), folder, script)

    first, second = scenarios_of(folder)
    assert (first.status, second.status) == ("ok", "ok")
    assert (first.description, second.description) == (SAME["description"], OTHER["description"])
    reask = script.calls(schema="ScenarioAnswer")[-1]
    assert "repeats a scenario these rules already have" in reask.last


def test_a_model_that_can_only_repeat_itself_leaves_the_slot_in_error(scripted_config, script, folder):
    script_document(script, flows=ONE_RULE, scenario=SAME)
    run_describe(configure(scripted_config, samples=2, max_attempts=1), folder, script)

    first, second = scenarios_of(folder)
    assert first.status == "ok" and second.status == "error" and "repeats a scenario" in second.error
    assert second.repeat == 1 and second.policies == first.policies


def test_a_failed_repeat_does_not_hand_its_answer_to_the_next(scripted_config, script, folder):
    """After a repeat fails, the next one of its set is shown the same earlier scenarios: its request must still
    differ, or a model at temperature 0 (and the cache) would give it the failed answer again."""
    script_document(script, flows=ONE_RULE, scenario=SAME)
    script.rules = [rule for rule in script.rules if rule.schema != "ScenarioAnswer"]
    script.on(schema="ScenarioAnswer", replies=[SAME] * 4 + [OTHER])
    run_describe(configure(scripted_config, samples=3, max_attempts=1, workers=1, parse_retries=2), folder, script)

    assert [s.status for s in scenarios_of(folder)] == ["ok", "error", "ok"]
    assert scenarios_of(folder)[2].description == OTHER["description"]


def test_the_same_seed_writes_the_same_repeats_whatever_the_workers(scripted_config, tmp_path):
    flows = {"Orders": rules(2, challenge=3)}
    for workers in (1, 4):
        run_describe(configure(scripted_config, samples=7, workers=workers), tmp_path / str(workers),
                     script_document(ScriptedLLM(), flows=flows))
    assert (tmp_path / "1" / "scenarios.jsonl").read_bytes() == (tmp_path / "4" / "scenarios.jsonl").read_bytes()
    scenarios = scenarios_of(tmp_path / "1")
    assert len({s.id for s in scenarios}) == 7 and len({s.description for s in scenarios}) == 7


def test_a_resumed_run_keeps_the_written_repeats_and_writes_the_rest_after_them(scripted_config, script, folder):
    script_document(script, flows=ONE_RULE)
    config = configure(scripted_config, samples=3)
    run_describe(config, folder, script)
    before = (folder / "scenarios.jsonl").read_text().splitlines(keepends=True)
    (folder / "scenarios.jsonl").write_text("".join(before[:2]))  # S003 never written
    for name in ("llm_cache.sqlite", "llm_cache.sqlite-wal", "llm_cache.sqlite-shm"):
        (folder / name).unlink(missing_ok=True)
    script.requests.clear()

    run_describe(config, folder, script)

    (request,) = script.calls(schema="ScenarioAnswer")
    assert all(scenario.description in request.last for scenario in scenarios_of(folder)[:2])
    assert (folder / "scenarios.jsonl").read_text().splitlines(keepends=True) == before


def test_the_scenario_reply_of_the_tests_follows_the_prompt():
    """The double used above writes another situation when it is shown earlier ones."""
    prompt = "in no particular order:\n- rule\n\nthe most recent of them are below.\n- x (situation 2)"
    request = type("R", (), {"last": prompt})()
    assert scenario_reply(request)["description"].endswith("(situation 3)")
