"""The dialog: who speaks when, what each side sees, how a verdict is reached, and how a dialog ends."""

from __future__ import annotations

import json

import pytest
from scripted_dialogs import call, dialogs, event, play_shop, reply, say, shop_config, simulate, stop, verdict

from intellagent.artifacts import Entitlement
from intellagent.llm import HTTPError
from intellagent.simulate.drafts import draft_fault, restatement
from intellagent.simulate.turns import UserTurn

SECRET = "my-private-plan-7"


def test_a_confirmed_success_passes(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel order A1."), stop("success", "it cancelled")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Order A1 is cancelled."))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    (dialog,) = play_shop(tmp_path, run_folder, script)
    assert (dialog.status, dialog.reason, dialog.turns) == ("pass", "it cancelled", 2)
    assert [(c.verdict, c.confirmed, c.checked) for c in dialog.critiques] == [("success", True, True)]


def test_a_failure_confirmed_by_the_critique_fails(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel order A1."), stop("failure", "cancelled unasked")])
    script.on(role="chatbot", schema="ChatbotStep", replies=[call("cancel_order", order_id="A1"), reply("Done.")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    (dialog,) = play_shop(tmp_path, run_folder, script)
    assert (dialog.status, dialog.reason) == ("fail", "cancelled unasked")
    assert dialog.critiques[0].confirmed


def test_a_failure_overturned_by_the_critique_goes_on_and_can_pass(tmp_path, run_folder, script):
    script.on(
        role="user",
        schema="UserTurn",
        replies=[
            say("Cancel order A1."),
            stop("failure", "it did not cancel"),
            say("Yes, cancel it."),
            stop("success", "done"),
        ],
    )
    script.on(role="chatbot", schema="ChatbotStep", replies=[reply("A1 can be cancelled once you confirm."),
                                                             reply("Cancelled.")])
    script.on(
        role="critique",
        schema="Critique",
        replies=[verdict(False, "It must ask first; you have not confirmed yet."), verdict(True)],
    )
    (dialog,) = play_shop(tmp_path, run_folder, script, config=shop_config(tmp_path, simulate={"max_critiques": 2}))
    assert dialog.status == "pass"
    assert [(c.verdict, c.confirmed) for c in dialog.critiques] == [("failure", False), ("success", True)]
    assert dialog.critiques[0].feedback == "It must ask first; you have not confirmed yet."
    after_feedback = script.calls(role="user")[2]
    assert "It must ask first" in after_feedback.last
    assert [m.content for m in dialog.transcript if m.role == "user"] == ["Cancel order A1.", "Yes, cancel it."]


def test_send_backs_are_bounded_then_the_verdict_stands_unchecked(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Where is A1?"), stop("failure", "rude"),
                                                       stop("failure", "still rude")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("It is on its way."))
    script.on(role="critique", schema="Critique", reply=verdict(False, "It was polite."))
    (dialog,) = play_shop(tmp_path, run_folder, script)  # max_critiques: 1
    assert dialog.status == "fail" and dialog.reason == "still rude"
    assert [(c.confirmed, c.checked) for c in dialog.critiques] == [(False, True), (True, False)]
    assert len(script.calls(role="critique", schema="Critique")) == 1


def test_the_chatbot_greets_first(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", reply=stop("success", "fine"))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    greeting = shop_config(tmp_path, chatbot={"greeting": "Hi, shop desk."})
    (dialog,) = play_shop(tmp_path, run_folder, script, config=greeting)
    assert [(m.role, m.content) for m in dialog.transcript] == [("chatbot", "Hi, shop desk.")]
    first = script.calls(role="user")[0]
    assert "# The conversation so far\nAgent: Hi, shop desk.\n" in first.last


def test_reaching_max_turns_is_incomplete_not_fail(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", reply=say("Hello?"))
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Hello!"))
    (dialog,) = play_shop(tmp_path, run_folder, script)  # max_turns: 4
    assert dialog.status == "incomplete" and "4 user turns" in dialog.reason
    assert dialog.turns == 4 and len(dialog.transcript) == 9
    assert dialog.transcript[-1].role == "chatbot" and not script.calls(role="critique", schema="Critique")


def test_the_first_user_turn_is_reminded_to_say_what_it_wants_and_only_the_last_to_give_a_verdict(
    tmp_path, run_folder, script
):
    script.on(role="user", schema="UserTurn", replies=[say(f"Hello, question {n}?") for n in range(4)])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Hello!"))
    play_shop(tmp_path, run_folder, script)  # max_turns: 4
    requests = script.calls(role="user")
    assert ["This is your last message" in request.last for request in requests] == [False, False, False, True]
    assert ["only greeted you" in request.last for request in requests] == [True, False, False, False]


def test_an_adapter_exception_is_an_error_that_keeps_the_transcript(tmp_path, run_folder, script):
    def broken(messages, session_id):
        raise ConnectionError("backend down")

    script.on(role="user", schema="UserTurn", reply=say("Cancel order A1."))
    (dialog,) = play_shop(tmp_path, run_folder, script, chatbot=broken)
    assert dialog.status == "error"
    assert dialog.reason.startswith("chatbot: ") and "ConnectionError: backend down" in dialog.reason
    assert [m.role for m in dialog.transcript] == ["chatbot", "user"]


def test_an_llm_failure_after_retries_is_an_error(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1."), stop("success", "fine")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Done."))
    script.on(role="critique", schema="Critique", reply=HTTPError(400, "context too long"))
    (dialog,) = play_shop(tmp_path, run_folder, script)
    assert dialog.status == "error" and dialog.reason.startswith("critique: ") and "context too long" in dialog.reason


def test_the_first_turn_cannot_stop_the_dialog_before_the_chatbot_did_anything(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1."), stop("success", "it cancelled")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Order A1 is cancelled."))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    (dialog,) = play_shop(tmp_path, run_folder, script)
    first, second = script.calls(role="user")[:2]
    decisions = [request.body["response_format"]["json_schema"]["schema"]["properties"]["decision"]
                 for request in (first, second)]
    assert decisions[0]["const"] == "continue" and "stop-success" in decisions[1]["enum"]
    assert dialog.status == "pass", dialog.reason


def test_the_thought_never_reaches_the_chatbot(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1.", thought=SECRET), say("Yes.", thought=SECRET)])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Sure?"))
    play_shop(tmp_path, run_folder, script, config=shop_config(tmp_path, simulate={"max_turns": 2}))
    seen = [r.text for r in script.calls(role="chatbot")]
    assert len(seen) == 2 and all("Cancel A1." in text and SECRET not in text for text in seen)
    assert "Customer (you): Cancel A1.\nAgent: Sure?" in script.calls(role="user")[1].last


def test_tool_calls_and_results_are_recorded_in_order(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1, I confirm."), stop("success", "cancelled")])
    script.on(
        role="chatbot",
        schema="ChatbotStep",
        replies=[call("get_order", order_id="A1"), call("cancel_order", order_id="A1"), reply("A1 is cancelled.")],
    )
    script.on(role="critique", schema="Critique", reply=verdict(True))
    (dialog,) = play_shop(tmp_path, run_folder, script)
    answer = dialog.transcript[2]
    assert [(c.id, c.name, c.arguments) for c in answer.tool_calls] == [
        ("call_1", "get_order", {"order_id": "A1"}),
        ("call_2", "cancel_order", {"order_id": "A1"}),
    ]
    assert json.loads(answer.tool_calls[0].result)["status"] == "placed"
    assert answer.tool_calls[1].result == "order A1 cancelled"
    assert answer.content == "A1 is cancelled."


def test_the_critique_reads_the_policy_every_tool_call_and_the_verdict(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1."), stop("failure", "no confirmation asked")])
    script.on(role="chatbot", schema="ChatbotStep", replies=[call("cancel_order", order_id="A1"), reply("Done.")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    play_shop(tmp_path, run_folder, script)
    (request,) = script.calls(role="critique", schema="Critique")
    assert request.system.startswith("# Shop assistant")
    assert 'Agent calls cancel_order({"order_id": "A1"})' in request.last
    assert "order A1 cancelled" in request.last and "failure: no confirmation asked" in request.last


def test_the_critique_opens_as_the_chatbot_does_the_policy_then_the_tools(tmp_path, run_folder, script):
    # On a server with a prefix cache, the closing critique then leaves the next dialog's chatbot its opening read.
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1."), stop("success", "it was cancelled")])
    script.on(role="chatbot", schema="ChatbotStep", replies=[call("cancel_order", order_id="A1"), reply("Done.")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    play_shop(tmp_path, run_folder, script)
    chatbot, critique = script.calls(role="chatbot")[0], script.calls(role="critique", schema="Critique")[0]

    def system_messages(request):
        return [m["content"] for m in request.messages if m["role"] == "system"]

    policy, steps = system_messages(chatbot)
    assert system_messages(critique)[0] == policy
    tools = steps.split("\n\n")[0]
    assert tools.startswith("Tools, each with what it needs:\n- get_order") and "- cancel_order" in tools
    assert system_messages(critique)[1].startswith(tools + "\n\n")
    assert "You act in steps" not in critique.text  # the chatbot's own instructions are not the judge's


def test_a_stop_without_a_reason_is_asked_again(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Where is A1?"), stop("success", ""),
                                                       stop("success", "it helped")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("It is on its way."))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    (dialog,) = play_shop(tmp_path, run_folder, script)
    assert dialog.status == "pass" and dialog.turns == 2
    assert "give the reason" in script.calls(role="user")[2].last


def test_a_chatbot_that_ends_the_dialog_gets_a_verdict_at_once(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", reply=say("I want a human."))
    script.on(role="user", schema="FinalUserTurn", reply=stop("success", "handed over"))
    script.on(role="chatbot", schema="ChatbotStep", reply=call("transfer_to_human", summary="wants a human"))
    script.on(role="chatbot", schema="ChatbotFinalStep", reply=reply("A colleague takes over."))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    (dialog,) = play_shop(tmp_path, run_folder, script)
    assert dialog.status == "pass"
    assert [c.name for c in dialog.transcript[-1].tool_calls] == ["transfer_to_human"]
    assert "ended the conversation" in script.calls(role="user", schema="FinalUserTurn")[0].last


def test_a_user_message_that_echoes_the_agent_is_asked_again(tmp_path, run_folder, script):
    echo = say("What is the id of the order you want cancelled?")
    script.on(
        role="user", schema="UserTurn", replies=[say("Cancel my order."), echo, say("It is A1."), stop("success", "ok")]
    )
    script.on(
        role="chatbot", schema="ChatbotStep", reply=reply("Sure. What is the id of the order you want cancelled?")
    )
    script.on(role="critique", schema="Critique", reply=verdict(True))
    (dialog,) = play_shop(tmp_path, run_folder, script)
    assert [m.content for m in dialog.transcript if m.role == "user"] == ["Cancel my order.", "It is A1."]
    redraft = script.calls(role="user")[2]
    assert 'Your draft "What is the id of the order you want cancelled?" repeats the agent\'s words' in redraft.last
    assert len(redraft.messages) == len(script.calls(role="user")[1].messages)  # a note, not an error exchange
    assert redraft.body["temperature"] > script.calls(role="user")[1].body["temperature"]


def test_a_user_message_sent_before_is_asked_again(tmp_path, run_folder, script):
    script.on(
        role="user",
        schema="UserTurn",
        replies=[say("Please cancel my order now."), say("Please cancel my order now."), say("It is A1."),
                 stop("success", "ok")],
    )
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Which order?"))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    (dialog,) = play_shop(tmp_path, run_folder, script)
    assert [m.content for m in dialog.transcript if m.role == "user"] == ["Please cancel my order now.", "It is A1."]
    assert "repeats a message you already sent" in script.calls(role="user")[2].last


def test_a_user_message_in_the_agents_part_is_asked_again(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[
        say("Cancel my order."), say("I'm sorry, but I can't assist with that."), say("It is A1."),
        stop("success", "ok")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Which order?"))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    (dialog,) = play_shop(tmp_path, run_folder, script)
    assert [m.content for m in dialog.transcript if m.role == "user"] == ["Cancel my order.", "It is A1."]
    redraft = script.calls(role="user")[2]
    assert redraft.body["temperature"] > script.calls(role="user")[1].body["temperature"]
    assert 'speaks as the agent, not as the customer ("I\'m sorry, but I can\'t assist with that.")' in redraft.last


@pytest.mark.parametrize(("message", "problem"), [
    ("Hello! How can I help you today?", "speaks as the agent"),
    ("If you have any other questions, feel free to ask.", "speaks as the agent"),
    ("I'm sorry, but I don't have your user profile yet. Can you please provide it?", "speaks as the agent"),
    ("Can you please provide me with the reservation ID so I can update it?", "speaks as the agent"),
    ("The customer provides his reservation id.", "narrates instead of speaking as the customer"),
    ("I don't have my reservation id with me.", None),
    ("Hello! Welcome to our airline, what brings you here?", "repeats the agent's words"),  # its greeting
    ("I can't find my booking number anywhere.", None),
    ("Can you help me change my flight?", None),
])
def test_what_the_user_must_not_send(message, problem):
    said = ["Hello! Welcome to our airline, what brings you here?", "Sure. What is your user id?"]
    found = draft_fault(UserTurn(thought="", message=message, decision="continue", reason=""), agent_said=said)
    assert (found is None) is (problem is None) and (found is None or found.problem.startswith(problem))


@pytest.mark.parametrize(("agent", "user_said", "may_go_on", "problem"), [
    ("Shall I cancel order A1? Please confirm.", ["Cancel A1."], True, "ends the conversation while the agent"),
    ("One moment while I cancel it.", ["Cancel A1."], True, "ends the conversation while the agent"),
    ("Order A1 is cancelled. Anything else?", ["Cancel A1."], True, None),
    ("Shall I cancel order A1? Please confirm.", ["Cancel A1."], False, None),  # its last turn: it must stop
    ("Hello! How can I help?", [], True, "ends the conversation before you said what you want"),
])
def test_a_stop_is_drawn_again_only_while_the_agent_is_still_on_the_request(agent, user_said, may_go_on, problem):
    stopping = UserTurn(thought="", message="", decision="stop-failure", reason="it asked me to confirm")
    found = draft_fault(stopping, agent_said=[agent], user_said=user_said, may_go_on=may_go_on)
    assert (found is None) is (problem is None) and (found is None or found.problem.startswith(problem))


def test_a_user_that_keeps_echoing_ends_the_dialog_incomplete_with_its_transcript(tmp_path, run_folder, script):
    question = "Sure. What is the id of the order you want cancelled?"
    script.on(role="user", schema="UserTurn", replies=[say("Cancel my order."), say(question), say(question),
                                                       say(question)])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply(question))
    (dialog,) = play_shop(tmp_path, run_folder, script)
    assert dialog.status == "incomplete"
    assert dialog.reason.startswith("the simulated user could not go on")
    assert "repeats the agent's words" in dialog.reason
    assert [m.content for m in dialog.transcript][1:] == ["Cancel my order.", question]


def test_a_user_entitled_to_a_change_that_keeps_echoing_says_its_request_again_once_then_ends(
        tmp_path, run_folder, script):
    question = "Sure. What is the id of the order you want cancelled?"
    script.on(role="user", schema="UserTurn", replies=[say("Cancel my order A1."), *[say(question)] * 6])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply(question))
    entitled = event(entitled=Entitlement(tool="cancel_order", request="Cancel order A1, which has not shipped."))

    (dialog,) = play_shop(tmp_path, run_folder, script, events=[entitled])

    assert [m.content for m in dialog.transcript if m.role == "user"] == [
        "Cancel my order A1.", "I still need this done: Cancel order A1, which has not shipped."]
    assert dialog.status == "incomplete" and "repeats the agent's words" in dialog.reason


def test_a_request_said_again_counts_as_said_when_a_persona_move_was_added_to_it() -> None:
    entitled = event(entitled=Entitlement(tool="cancel_order", request="Cancel my order"))
    again = restatement(entitled, ["A1"], user_said=["Cancel my order A1."])

    assert again == "I still need this done: Cancel my order. My reference is A1."
    assert restatement(entitled, ["A1"], user_said=[f"{again} I expected much better service than this."]) is None
    assert restatement(event(), ["A1"], user_said=[]) is None  # nothing it is entitled to: nothing to say again


def test_a_request_said_again_that_names_its_record_gets_no_reference_after_it() -> None:
    named = event(entitled=Entitlement(tool="cancel_order", request="Cancel order a1"))

    assert restatement(named, ["A1"], user_said=["Hello."]) == "I still need this done: Cancel order a1."
    assert restatement(named, [], user_said=["Hello."]) == "I still need this done: Cancel order a1."


def test_a_user_that_keeps_narrating_is_sent_as_it_is_after_the_bound_and_the_audit_counts_it(
        tmp_path, run_folder, script):
    narrating = say("The customer asks to cancel order A1.")
    script.on(role="user", schema="UserTurn", replies=[narrating, narrating, stop("success", "cancelled")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Order A1 is cancelled."))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    (dialog,) = play_shop(tmp_path, run_folder, script, config=shop_config(tmp_path, simulate={"goal_question": "no"}))
    first, second, third = script.calls(role="user")[:3]
    assert "narrates" not in first.last and "narrates instead of speaking as the customer" in second.last
    assert "narrates" not in third.last  # the next turn starts afresh
    assert [m.content for m in dialog.transcript if m.role == "user"] == ["The customer asks to cancel order A1."]
    assert dialog.audit is not None and [f.kind for f in dialog.audit.faults] == ["narrated"]


def test_a_critique_that_cannot_answer_leaves_the_verdict_unchecked(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel order A1."), stop("failure", "cancelled unasked")])
    script.on(role="chatbot", schema="ChatbotStep", replies=[call("cancel_order", order_id="A1"), reply("Done.")])
    script.on(role="critique", schema="Critique", reply=verdict(False, ""))
    (dialog,) = play_shop(tmp_path, run_folder, script)
    assert (dialog.status, dialog.reason) == ("fail", "cancelled unasked")
    assert [(c.confirmed, c.checked) for c in dialog.critiques] == [(True, False)]


def test_without_thoughts_the_user_is_asked_for_none_and_says_none(tmp_path, run_folder, script):
    script.on(role="user", schema="BriefUserTurn", replies=[
        {"message": "Cancel A1.", "decision": "continue", "reason": ""},
        {"message": "", "decision": "stop-success", "reason": "it cancelled"}])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    script.on(role="chatbot", reply=reply("Order A1 is cancelled."))
    config = shop_config(tmp_path, simulate={"user_thoughts": "no"})
    folder = run_folder(config, [event()])

    simulate(config, folder, script)

    (played,) = dialogs(folder)
    assert played.status == "pass" and played.transcript[1].thought in ("", None)
    first = script.calls(role="user")[0]
    assert '"thought"' not in first.system
    assert "thought" not in first.body["response_format"]["json_schema"]["schema"]["properties"]


def test_thoughts_are_asked_for_unless_the_user_is_the_embedded_model(tmp_path):
    from intellagent.context import RunContext
    from intellagent.executors import LocalExecutor
    from intellagent.llm import RoleModels
    from intellagent.simulate.setting import user_thoughts

    def thinks(**settings):
        config = shop_config(tmp_path, **settings)
        return user_thoughts(RunContext(config=config, folder=None, llms=RoleModels(config, cache=None, usage=None),
                                        usage=None, progress=None, executor=LocalExecutor()))

    assert thinks() is True  # the scripted model
    assert thinks(llm="local") is False
    assert thinks(llm="local", simulate={"user_thoughts": "yes"}) is True
