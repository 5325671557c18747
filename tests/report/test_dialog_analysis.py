"""The analysis of each dialog: a structured answer per dialog, ids from the dialog only, resumable."""

from __future__ import annotations

from shop_run import ANSWERS, answer_for, report_run

from intellagent.artifacts import Analysis


def analyses(folder) -> dict[str, Analysis]:
    return {a.id: a for a in folder.analyses.load()}


def about(dialog_id: str):
    return lambda request: f"case {dialog_id}." in request.text


def test_each_rated_dialog_records_the_tested_and_violated_policies(shop_report):
    _, folder = shop_report
    s002 = analyses(folder)["S002"]
    assert (s002.status, s002.tested) == ("fail", ["P01", "P03"])
    assert [(v.policy, v.turn) for v in s002.violations] == [("P03", 4)]
    assert '"Done, I changed it."' in s002.violations[0].reason


def test_a_violated_policy_counts_as_tested(shop_report):
    _, folder = shop_report
    assert analyses(folder)["S003"].tested == ["P02", "P04"]


def test_the_answer_schema_allows_only_the_dialogs_own_policies_and_chatbot_turns(reported, analysis_script):
    request = next(r for r in analysis_script.calls(role="analysis") if "case S002." in r.text)
    schema = request.body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["tested"]["items"]["enum"] == ["P01", "P03"]
    violation = schema["$defs"]["PolicyViolation"]["properties"]
    assert violation["policy"]["enum"] == ["P01", "P03"]
    assert violation["turn"]["enum"] == [0, 2, 4]


def test_an_unknown_policy_id_is_sent_back_and_answered_again(config, run_folder, script):
    invalid = {**ANSWERS["S001"], "tested": ["P01", "P05"]}  # P05 is not one of S001's policies
    script.on(role="analysis", when=about("S001"), replies=[invalid, ANSWERS["S001"]])
    script.on(role="analysis", reply=answer_for)
    report_run(config, run_folder, script)
    asked = [r for r in script.calls(role="analysis") if "case S001." in r.text]
    assert len(asked) == 2
    assert "tested.1: Input should be 'P01' or 'P02'" in asked[1].last
    assert analyses(run_folder)["S001"].status == "pass"


def test_the_verdict_follows_from_the_violations_and_is_not_asked(config, run_folder, script):
    script.on(role="analysis", reply=answer_for)
    report_run(config, run_folder, script)
    request = next(r for r in script.calls(role="analysis") if "case S002." in r.text)
    assert set(request.body["response_format"]["json_schema"]["schema"]["properties"]) == {"tested", "violations"}
    recorded = analyses(run_folder)
    assert (recorded["S001"].status, recorded["S001"].violations) == ("pass", [])
    assert recorded["S002"].status == "fail" and recorded["S002"].violations


def test_a_judge_answer_that_never_validates_leaves_the_simulations_verdict_with_the_failure_beside_it(
    config, run_folder, script
):
    script.on(role="analysis", when=about("S003"), reply={"tested": ["P99"], "violations": []})
    script.on(role="analysis", reply=answer_for)
    result = report_run(config, run_folder, script)
    s003 = analyses(run_folder)["S003"]
    # The user and the critique said fail: that verdict stands, with the judge's failure beside it.
    assert s003.status == "fail" and "did not match DialogAnalysis" in s003.judge_error
    assert result.report.overall.pass_rate.total == 4  # S001 to S004: S003 still counts, as the simulation judged it
    assert next(d for d in result.report.dialogs if d.id == "S003").judge_error == s003.judge_error
    assert result.report.overall.by_status["error"] == 1


def test_a_dialog_that_ran_out_of_turns_is_judged_and_only_error_dialogs_are_not(reported, analysis_script):
    result, folder = reported
    asked = analysis_script.calls(role="analysis")
    assert len(asked) == 4 and any("case S004." in r.text for r in asked)
    recorded = analyses(folder)
    assert recorded["S004"].status == "fail" and [v.policy for v in recorded["S004"].violations] == ["P03"]
    s004 = next(d for d in result.report.dialogs if d.id == "S004")
    assert (s004.simulated, s004.status, s004.violated) == ("incomplete", "fail", ["P03"])
    assert (recorded["S005"].status, recorded["S005"].error) == ("error", "chatbot: connection refused")


def test_the_prompt_holds_policies_numbered_turns_tool_calls_and_the_judgement(reported, analysis_script):
    request = next(r for r in analysis_script.calls(role="analysis") if "case S002." in r.text)
    text = request.text
    assert "P01: Verify the customer's identity" in text and "P02:" not in text
    assert '[2] chatbot calls get_order({"order_id": "O-1"}) -> {"order_id": "O-1"' in text
    assert '[4] chatbot reports it called send_email({"to": "ana"}) -> sent' in text
    assert "[4] chatbot: Done, I changed it." in text
    assert "Simulation verdict: fail" in text and "The failure verdict at turn 2 was confirmed" in text
    assert "Open with the goal" not in text  # the user's private thoughts are not evidence


def test_a_second_run_makes_no_call_and_adds_no_line(config, reported, analysis_script):
    _, folder = reported
    before = folder.path("analysis.jsonl").read_bytes()
    asked = len(analysis_script.requests)
    report_run(config, folder, analysis_script)
    assert len(analysis_script.requests) == asked
    assert folder.path("analysis.jsonl").read_bytes() == before


def test_a_lost_analysis_is_redone_alone_from_the_cache(config, reported, analysis_script):
    _, folder = reported
    path = folder.path("analysis.jsonl")
    path.write_text("".join(line + "\n" for line in path.read_text().splitlines() if '"S002"' not in line))
    result = report_run(config, folder, analysis_script)
    tally = result.info.usage.steps["report/analysis"]
    assert (tally.calls, tally.cached) == (4, 1)
    assert analyses(folder)["S002"].status == "fail"


def test_a_changed_dialog_is_analysed_again(config, reported, analysis_script):
    _, folder = reported
    dialogs = folder.dialogs
    changed = next(d for d in dialogs.load() if d.id == "S001").model_copy(update={"reason": "judged again"})
    dialogs.append(changed)
    asked = len(analysis_script.requests)
    report_run(config, folder, analysis_script)
    new = analysis_script.requests[asked:]
    assert len(new) == 1 and "case S001." in new[0].text


def test_a_dialog_that_left_out_its_policies_is_asked_about_its_events_policies(config, run_folder, analysis_script):
    dialogs = run_folder.dialogs
    s002 = next(d for d in dialogs.load() if d.id == "S002")
    dialogs.append(s002.model_copy(update={"policies": [], "challenge": 0}))
    result = report_run(config, run_folder, analysis_script)
    request = next(r for r in analysis_script.calls(role="analysis") if "case S002." in r.text)
    assert request.body["response_format"]["json_schema"]["schema"]["properties"]["tested"]["items"]["enum"] == [
        "P01", "P03"]
    assert next(d for d in result.report.dialogs if d.id == "S002").challenge == 3


def test_a_dialog_replayed_with_other_timings_keeps_its_analysis(config, reported, analysis_script):
    _, folder = reported
    dialogs = folder.dialogs
    before = folder.path("analysis.jsonl").read_bytes()
    dialog = next(d for d in dialogs.load() if d.id == "S001")
    transcript = [message.model_copy(update={"at_s": message.at_s + 9.5}) for message in dialog.transcript]
    dialogs.append(dialog.model_copy(update={"transcript": transcript, "duration_s": 99.0, "usage": {}}))
    asked = len(analysis_script.requests)
    report_run(config, folder, analysis_script)
    assert len(analysis_script.requests) == asked
    assert folder.path("analysis.jsonl").read_bytes() == before


def test_what_a_dialog_was_played_for_is_no_part_of_its_analysis_so_a_run_older_than_roles_keeps_them(
        config, reported, analysis_script):
    _, folder = reported
    dialogs = folder.dialogs
    before = folder.path("analysis.jsonl").read_bytes()
    dialogs.append(next(d for d in dialogs.load() if d.id == "S001").model_copy(update={"role": "solo"}))
    asked = len(analysis_script.requests)
    report_run(config, folder, analysis_script)
    assert len(analysis_script.requests) == asked
    assert folder.path("analysis.jsonl").read_bytes() == before


def test_a_dialog_whose_user_never_spoke_is_not_judged_and_keeps_its_reason(config, run_folder, analysis_script):
    dialogs = run_folder.dialogs
    s004 = next(d for d in dialogs.load() if d.id == "S004")
    reason = "the simulated user could not go on: it repeated the greeting"
    dialogs.append(s004.model_copy(update={"transcript": s004.transcript[:1], "reason": reason, "turns": 0}))
    result = report_run(config, run_folder, analysis_script)
    assert not any("case S004." in r.text for r in analysis_script.calls(role="analysis"))
    assert (analyses(run_folder)["S004"].status, analyses(run_folder)["S004"].error) == ("incomplete", reason)
    assert result.report.overall.by_status["incomplete"] == 1


def test_a_dialog_whose_user_never_spoke_is_no_pass_whatever_its_user_said_at_the_end(config, run_folder,
                                                                                       analysis_script):
    dialogs = run_folder.dialogs
    s004 = next(d for d in dialogs.load() if d.id == "S004")
    dialogs.append(s004.model_copy(update={"transcript": s004.transcript[:1], "status": "pass", "reason": "ZTS5",
                                           "turns": 0}))
    result = report_run(config, run_folder, analysis_script)
    assert (analyses(run_folder)["S004"].status, analyses(run_folder)["S004"].error) == (
        "incomplete", "the simulated user never spoke")
    assert next(d for d in result.report.dialogs if d.id == "S004").status == "incomplete"
    assert result.report.overall.by_status["incomplete"] == 1


def test_the_judge_is_told_an_adversarial_users_part_and_the_false_claim_it_made(reported, analysis_script):
    text = next(r for r in analysis_script.calls(role="analysis") if "case S003." in r.text).text

    assert "The user played a part on purpose (false_claim)" in text
    assert "The user claimed that my tier is gold, which is false: the records say tier is basic" in text


def test_the_judge_is_told_nothing_of_a_cooperative_user(reported, analysis_script):
    text = next(r for r in analysis_script.calls(role="analysis") if "case S001." in r.text).text

    assert "played a part" not in text and "claimed" not in text
