"""`--trials auto`: trials go only to events whose verdicts flipped or whose pass-rate interval holds a gate threshold,
within the budget, and a rerun plays nothing new."""

from __future__ import annotations

from collections import Counter

import pytest
from scripted_dialogs import dialogs, event, pursued, reply, say, shop_config, simulate, stop, verdict

from intellagent.artifacts import Dialog, Finding, Message, OutcomeGrade, UserAudit, UserFault
from intellagent.artifacts.tau import TauGrade
from intellagent.cli import parser
from intellagent.config import ReportConfig
from intellagent.errors import UsageError
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.llm.dialog_models import dialog_seed
from intellagent.simulate.trial_plan import next_round, noise, opening, thresholds, trial_verdict
from intellagent.simulate.trials import trial_id


def played(status: str = "pass", **fields) -> Dialog:
    return Dialog(id="E1", event="E1", status=status, **fields)


def test_a_trials_verdict_is_the_users_confirmed_verdict():
    assert (trial_verdict(played("pass")), trial_verdict(played("fail"))) == (True, False)


def test_a_checks_finding_fails_a_trial_the_user_passed():
    assert trial_verdict(played("pass", findings=[Finding(message="wrote unasked", turn=2)])) is False


def test_a_trial_whose_users_fault_could_decide_it_or_that_ran_out_of_turns_or_failed_has_no_verdict():
    fault = UserAudit(faults=[UserFault(kind="narrated", turn=1, evidence="The customer says")])
    answered = [Message(role="chatbot", content="Hi!"), Message(role="user", content="The customer says hi."),
                Message(role="chatbot", content="Shall I cancel A1?")]
    assert trial_verdict(played("pass", audit=fault, transcript=answered)) is None
    assert trial_verdict(played("incomplete")) is None and trial_verdict(played("error")) is None


def test_a_trial_graded_against_its_expected_outcome_is_that_grade_whatever_the_user_said():
    missed = OutcomeGrade(reward=0.0, state_match=False, expected_calls=1, made_calls=0, matched_calls=0, progress=0.0)
    assert trial_verdict(played("pass", grade=missed)) is False


def test_a_tau_trial_is_its_reward():
    grade = TauGrade(task=0, reward=0.0, hash_match=False, agent_hash="a", gold_hash="b")
    assert trial_verdict(played("incomplete", tau=grade)) is False


def test_verdicts_that_flipped_are_noise():
    assert noise([True, False], []) == "its verdicts flipped"


def test_a_pass_rate_interval_holding_a_threshold_is_noise_until_enough_trials_clear_it():
    assert "threshold 0.5" in noise([True, True], [0.5])  # two passes: 95% interval 0.34 to 1
    assert noise([True] * 4, [0.5]) is None  # four: 0.51 to 1
    assert noise([True, True], []) is None and noise([], [0.5]) is None


def test_an_events_thresholds_are_the_overall_one_and_those_of_its_policies_and_their_categories():
    gate = ReportConfig(fail_under=0.6, min_policy={"P1": 0.9, "P7": 0.5}, min_category={"payment": 0.8})
    assert thresholds(gate, event(policies=["P1", "P2"]), {"P1": "refunds", "P2": "payment"}) == [0.6, 0.8, 0.9]


PASSED = OutcomeGrade(reward=1.0, state_match=True, expected_calls=1, made_calls=1, matched_calls=1, progress=1.0)


def graded(trial: int = 1) -> Dialog:
    """A trial a program settled: graded against the event's expected outcome, and passed."""
    return played("pass", trial=trial, grade=PASSED)


def test_a_round_adds_one_trial_to_each_noisy_event_and_none_to_one_a_program_settled():
    runs = {"E1": [played("pass"), played("fail", trial=2)], "E2": [graded(), graded(trial=2)]}
    assert next_round({"E1": 2, "E2": 2}, runs, {}, total=10) == {"E1": 3, "E2": 2}


def test_two_agreeing_verdicts_on_the_judges_word_alone_call_for_a_third():
    runs = {"E1": [played("pass"), played("pass", trial=2)]}
    assert next_round({"E1": 2}, runs, {}, total=10) == {"E1": 3}
    runs["E1"].append(played("pass", trial=3))
    assert next_round({"E1": 3}, runs, {}, total=10) == {"E1": 3}


def test_a_verdict_a_program_gave_among_the_judges_settles_two_agreeing_trials():
    runs = {"E1": [played("pass"), graded(trial=2)]}
    assert next_round({"E1": 2}, runs, {}, total=10) == {"E1": 2}


def test_a_round_gives_the_judges_third_trials_before_more_to_a_flipping_event():
    runs = {"E1": [played("pass"), played("fail", trial=2)], "E2": [played("pass"), played("pass", trial=2)]}
    assert next_round({"E1": 2, "E2": 2}, runs, {}, total=5) == {"E1": 2, "E2": 3}


def test_a_round_stops_at_the_budget():
    runs = {e: [played("pass"), played("fail", trial=2)] for e in ("E1", "E2")}
    assert next_round({"E1": 2, "E2": 2}, runs, {}, total=5) == {"E1": 3, "E2": 2}


def test_a_round_reads_only_the_trials_planned_so_far():
    runs = {"E1": [graded(), graded(trial=2), played("fail", trial=3)]}
    assert next_round({"E1": 2}, runs, {}, total=10) == {"E1": 2}


def test_the_opening_is_two_trials_each_unless_the_budget_pays_for_fewer():
    events = [event("E1"), event("E2")]
    assert opening(events, 4) == {"E1": 2, "E2": 2} and opening(events, 3) == {"E1": 1, "E2": 1}


def test_trials_take_a_number_or_auto_and_nothing_else(tmp_path):
    assert shop_config(tmp_path, simulate={"trials": "auto", "trials_budget": 9}).simulate.trials == "auto"
    with pytest.raises(UsageError, match=r"simulate\.trials.*from 1 to 100, or auto"):
        shop_config(tmp_path, simulate={"trials": "often"})
    assert parser().parse_args(["--config", "x.yml", "--trials", "auto"]).trials == "auto"
    with pytest.raises(UsageError, match="--trials: 'often' is neither a number of trials nor auto"):
        parser().parse_args(["--config", "x.yml", "--trials", "often"])


E1_VERDICTS = ["success", "failure", "success", "failure", "success"]  # E1 flips from trial to trial


def flipping_user(seed: int):
    """The user: asks to cancel, then judges; E1's trials alternate between success and failure, E2's pass."""
    verdicts = {dialog_seed(seed, trial_id("E1", t)): v for t, v in enumerate(E1_VERDICTS, start=1)}

    def answer(request):
        if "Shall I cancel A1?" not in request.text:
            return say("I want to cancel my order A1.")
        return stop(verdicts.get(request.body.get("seed"), "success"), "judged")

    return answer


def play_auto(tmp_path, run_folder, script, **report):
    config = shop_config(tmp_path, simulate={"trials": "auto", "trials_budget": 7}, report=report, workers=1)
    script.on(role="user", schema="UserTurn", reply=flipping_user(config.seed))
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Shall I cancel A1?"))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    script.on(role="critique", schema="GoalPursuit", reply=pursued())
    folder = run_folder(config, [event("E1"), event("E2")])
    simulate(config, folder, script)
    return config, folder


def test_auto_trials_go_to_the_flipping_event_until_the_budget_ends(tmp_path, run_folder, script):
    _, folder = play_auto(tmp_path, run_folder, script)
    trials = Counter(dialog.event_id for dialog in dialogs(folder))
    # 2 + 2 to open; E2's passes rest on the judge alone, so it gets a third, and E1 the rest of the budget of 7.
    assert trials == {"E1": 4, "E2": 3}


def test_auto_trials_go_to_an_event_whose_interval_holds_the_gate_threshold(tmp_path, run_folder, script):
    config = shop_config(tmp_path, simulate={"trials": "auto", "trials_budget": 20}, report={"fail_under": 0.5},
                         workers=1)
    asks_then_passes = [say("I want to cancel my order A1."), stop("success", "ok")]
    script.on(role="user", schema="UserTurn", replies=asks_then_passes * 20)
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("A1 is cancelled."))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    script.on(role="critique", schema="GoalPursuit", reply=pursued())
    simulate(config, run_folder(config, [event("E2")]), script)
    assert len(dialogs(tmp_path / "run")) == 4  # two passes leave 0.5 inside the interval; four clear it


def test_a_rerun_of_auto_trials_plays_nothing_new(tmp_path, run_folder, script):
    config, folder = play_auto(tmp_path, run_folder, script)
    first, calls = dialogs(folder), len(script.calls())
    simulate(config, folder, script)
    assert dialogs(folder) == first and len(script.calls()) == calls


def test_a_trial_that_failed_to_run_is_not_played_again_by_a_later_round(tmp_path, run_folder, script):
    attempts = Counter()

    def chatbot(messages, session_id):
        attempts[session_id] += 1
        if session_id == "E1-t2":
            raise ConnectionError("the chatbot's service is down")
        return "Shall I cancel A1?"

    config = shop_config(tmp_path, simulate={"trials": "auto", "trials_budget": 7}, report={"fail_under": 0.5},
                         workers=1)
    script.on(role="user", schema="UserTurn", reply=flipping_user(config.seed))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    script.on(role="critique", schema="GoalPursuit", reply=pursued())
    simulate(config, run_folder(config, [event("E1"), event("E2")]), script, chatbot=chatbot)
    assert len(dialogs(tmp_path / "run")) == 7 and attempts["E1-t2"] == 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_careless_model_leaves_valid_audited_dialogs_within_the_budget(tmp_path, run_folder, seed):
    config = shop_config(tmp_path, simulate={"trials": "auto", "trials_budget": 6}, report={"fail_under": 0.5})
    script = ScriptedLLM().on(reply=careless_answers(seed=seed))
    simulate(config, run_folder(config, [event("E1"), event("E2"), event("E3")]), script)
    played = dialogs(tmp_path / "run")
    assert 3 <= len(played) <= 6 and {d.event_id for d in played} == {"E1", "E2", "E3"}
    assert all(d.audit is not None for d in played if d.status != "error")
