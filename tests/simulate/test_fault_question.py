"""A program's fault of the simulated user is put to the critique model before it sets a dialog aside: one
schema-bounded question per fault, in transcript order, until one is confirmed; a fault read as none stays in the
audit and sets nothing aside; on the embedded model only a short question is asked."""

from __future__ import annotations

import asyncio

import pytest
from scripted_dialogs import (
    dialogs,
    event,
    persists,
    play_shop,
    pursued,
    reply,
    say,
    shop_config,
    simulate,
    stands,
    verdict,
)

from intellagent.artifacts import Dialog, Message, UserAudit, UserFault
from intellagent.config import load_config
from intellagent.context import RunContext
from intellagent.executors import LocalExecutor
from intellagent.llm import RoleModels, ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.simulate.fault_question import SHORT_QUESTION, confirmed, question_parts
from intellagent.simulate.setting import fault_question
from tests.simulate.scripted_dialogs import shop_settings

NARRATING = [*persists("The customer asks to cancel order A1."), *persists("The customer says yes, cancel it."),
             *stands("success", "it asked first")]


def reading(fault: bool) -> dict[str, object]:
    return {"reason": "The message tells of the customer." if fault else "The message speaks for itself.",
            "fault": fault}


def narrating_shop(script: ScriptedLLM) -> ScriptedLLM:
    script.on(role="user", schema="UserTurn", replies=NARRATING)
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Shall I cancel A1?"))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    return script.on(role="critique", schema="GoalPursuit", reply=pursued())


def test_a_fault_the_critique_confirms_sets_the_dialog_aside_and_ends_the_questions(tmp_path, run_folder, script):
    narrating_shop(script).on(role="critique", schema="FaultReading", reply=reading(True))
    (played,) = play_shop(tmp_path, run_folder, script)
    assert [(f.kind, f.turn, f.confirmed) for f in played.audit.faults] == [("narrated", 1, True),
                                                                          ("narrated", 3, None)]
    assert played.deciding_fault.turn == 1 and len(script.calls(schema="FaultReading")) == 1


def test_a_fault_the_critique_reads_as_none_stays_marked_and_the_next_one_is_asked(tmp_path, run_folder, script):
    narrating_shop(script).on(role="critique", schema="FaultReading", replies=[reading(False), reading(True)])
    (played,) = play_shop(tmp_path, run_folder, script)
    first, second = played.audit.faults
    assert (first.confirmed, second.confirmed) == (False, True) and "speaks for itself" in first.reading
    assert played.deciding_fault is second


def test_faults_all_read_as_none_set_nothing_aside(tmp_path, run_folder, script):
    narrating_shop(script).on(role="critique", schema="FaultReading", reply=reading(False))
    (played,) = play_shop(tmp_path, run_folder, script)
    assert [f.confirmed for f in played.audit.faults] == [False, False] and played.deciding_fault is None


def test_a_fault_the_chatbot_answered_only_with_courtesies_is_never_asked_about(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel order A1, please."),
                                                      *persists("The customer thanks the agent."),
                                                      *stands("success", "it asked first")])
    script.on(role="chatbot", schema="ChatbotStep", replies=[reply("Shall I cancel A1?"),
                                                            reply("You're welcome! Have a great day.")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    script.on(role="critique", schema="GoalPursuit", reply=pursued())
    script.on(role="critique", schema="FaultReading", reply=reading(True))
    (played,) = play_shop(tmp_path, run_folder, script)
    assert [(f.kind, f.turn) for f in played.audit.faults] == [("narrated", 3)]
    assert script.calls(schema="FaultReading") == [] and played.deciding_fault is None


def test_a_question_that_gets_no_answer_leaves_the_fault_standing(tmp_path, run_folder, script):
    narrating_shop(script).on(role="critique", schema="FaultReading", reply={"reason": "?"})
    (played,) = play_shop(tmp_path, run_folder, script)
    assert played.audit.confirm_error and played.deciding_fault.turn == 1 and played.deciding_fault.confirmed is None


def test_switched_off_no_fault_is_put_to_the_critique(tmp_path, run_folder, script):
    narrating_shop(script).on(role="critique", schema="FaultReading", reply=reading(False))
    (played,) = play_shop(tmp_path, run_folder, script,
                          config=shop_config(tmp_path, simulate={"fault_question": "no"}))
    assert script.calls(schema="FaultReading") == [] and played.deciding_fault.turn == 1


def longest(tmp_path, llm: str | dict[str, str] = "scripted", **settings: object) -> int | None:
    config = load_config({**shop_settings(**settings), "llm": llm}, base_dir=tmp_path)
    return fault_question(RunContext(config=config, folder=None, llms=RoleModels(config, cache=None, usage=None),
                                     usage=None, progress=None, executor=LocalExecutor()))


def test_the_embedded_model_is_asked_only_a_short_question(tmp_path):
    assert longest(tmp_path, llm={"default": "scripted", "critique": "local"}) == SHORT_QUESTION
    assert longest(tmp_path) > SHORT_QUESTION  # a hosted model, or the double standing for one
    assert longest(tmp_path, llm="local", simulate={"fault_question": "yes"}) > SHORT_QUESTION
    assert longest(tmp_path, simulate={"fault_question": "no"}) is None


def test_a_question_longer_than_the_model_is_asked_is_not_sent(script):
    script.on(role="critique", schema="FaultReading", reply=reading(False))
    long_scenario = event(scenario="You are Ana and want to cancel your order A1. " * 80)
    played = Dialog(id="S001", status="incomplete", reason="reached 4 user turns", transcript=[
        Message(role="chatbot", content="Hello!"), Message(role="user", content="The customer asks to cancel A1."),
        Message(role="chatbot", content="Shall I cancel A1?")])
    fault = UserFault(kind="narrated", turn=1, evidence="The customer asks to cancel A1.")
    models = RoleModels(load_config(shop_settings(), base_dir=None), cache=None, usage=None, script=script)
    program = UserAudit(faults=[fault])
    audit = asyncio.run(confirmed(long_scenario, played, program, models["critique"], longest=SHORT_QUESTION))
    assert script.calls(schema="FaultReading") == [] and audit.faults[0].confirmed is None


def test_an_early_stop_is_asked_about_with_the_chatbots_last_message():
    early = Dialog(id="S001", status="pass", reason="done", transcript=[
        Message(role="chatbot", content="Hello!"), Message(role="user", content="Cancel A1."),
        Message(role="chatbot", content="Could you confirm the order number?")])
    parts = question_parts(event(), early, UserFault(kind="stopped_early", turn=3, evidence="ended"))
    assert parts["before"] == "Could you confirm the order number?" and "ended the conversation" in parts["message"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_careless_double_as_the_confirming_model_leaves_valid_audits(tmp_path, run_folder, seed):
    script = ScriptedLLM()
    for name in ("E1", "E2"):  # each event's user narrates its two messages
        script.on(role="user", schema="UserTurn", when=lambda request, name=name: f"({name})" in request.text,
                  replies=NARRATING)
    script.on(role="critique", schema="FaultReading", reply=careless_answers(seed=seed))
    script.on(reply=careless_answers(seed=seed))
    config = shop_config(tmp_path)
    simulate(config, run_folder(config, [event("E1"), event("E2")]), script)
    played_dialogs = dialogs(tmp_path / "run")
    assert len(played_dialogs) == 2 and script.calls(schema="FaultReading")
    for played in played_dialogs:
        assert played.audit is not None and all(f.confirmed in (True, False, None) for f in played.audit.faults)
        assert all((f.reading is None) == (f.confirmed is None) for f in played.audit.faults)
        if played.deciding_fault is not None:
            assert played.deciding_fault.confirmed is not False
