"""The default chatbot: an LLM with the policy as its system prompt and the domain's tools on the dialog's database."""

from __future__ import annotations

import pytest
from scripted_dialogs import SHOP, call, dialogs, event, reply, say, shop_config, simulate, stands, stop, verdict

from intellagent.chatbots import uses_native_tools
from intellagent.environment import load_environment, worlds
from intellagent.llm import ToolCalls
from tests.conftest import world_file

POLICY = (SHOP / "policy.md").read_text()
NATIVE = {"native_tools": "yes"}


def play(tmp_path, run_folder, script, **settings):
    config = shop_config(tmp_path, **settings)
    folder = run_folder(config, [event()])
    simulate(config, folder, script)
    return config, folder, dialogs(folder)[0]


def test_the_system_prompt_is_exactly_the_policy_document(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Hi."), stop("success", "ok")])
    script.on(role="chatbot", reply="Hello.")
    script.on(role="critique", schema="Critique", reply=verdict(True))
    play(tmp_path, run_folder, script, chatbot=NATIVE)
    (request,) = script.calls(role="chatbot")
    assert request.messages[0] == {"role": "system", "content": POLICY}


def test_without_native_tools_the_policy_still_comes_first_then_the_step_instructions(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Hi."), stop("success", "ok")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Hello."))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    play(tmp_path, run_folder, script)
    (request,) = script.calls(role="chatbot")
    assert request.messages[0] == {"role": "system", "content": POLICY}
    assert "get_order: Look up an order." in request.messages[1]["content"]


def test_each_step_may_only_name_a_domain_tool_or_reply(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Hi."), stop("success", "ok")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Hello."))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    play(tmp_path, run_folder, script)
    schema = script.calls(role="chatbot")[0].body["response_format"]["json_schema"]["schema"]
    actions = {variant["properties"]["action"]["const"] for variant in schema["$defs"].values()}
    assert actions == {"get_order", "cancel_order", "transfer_to_human", "reply"}
    arguments = schema["$defs"]["Call_get_order"]["properties"]["arguments"]
    assert arguments["required"] == ["order_id"] and arguments["additionalProperties"] is False


def test_tools_change_the_dialog_copy_and_never_the_event_database(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1, I confirm."), stop("success", "cancelled")])
    script.on(role="chatbot", schema="ChatbotStep", replies=[call("cancel_order", order_id="A1"), reply("Cancelled.")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    config, folder, dialog = play(tmp_path, run_folder, script)
    environment = load_environment(config.environment)
    orders = environment.table("orders")
    event = folder / "events/S001.sqlite"
    with environment.session(event) as session:
        assert session.get(orders, "A1").status == "placed"
    world = world_file(folder, dialog.database)
    with environment.session(world) as session:
        assert session.get(orders, "A1").status == "cancelled"
    assert worlds.digest(worlds.changes(world, event), event) == dialog.digest != worlds.root_digest(event)


def test_a_failing_tool_answers_the_chatbot_with_the_error(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Where is Z9?"), stop("success", "ok")])
    script.on(role="chatbot", schema="ChatbotStep", replies=[call("get_order", order_id="Z9"), reply("No such order.")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    _, _, dialog = play(tmp_path, run_folder, script)
    assert dialog.status == "pass"
    assert dialog.transcript[2].tool_calls[0].result == "Error: no order Z9"
    assert "Error: no order Z9" in script.calls(role="chatbot")[-1].last


def test_after_max_tool_steps_the_chatbot_must_reply(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Check A1."), stop("success", "ok")])
    script.on(role="chatbot", schema="ChatbotStep", replies=[call("get_order", order_id=order) for order in
                                                             ("A1", "A2", "A3")])
    script.on(role="chatbot", schema="ChatbotFinalStep", reply=reply("A1 is placed."))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    _, _, dialog = play(tmp_path, run_folder, script)  # max_tool_steps: 3
    assert [r.schema for r in script.calls(role="chatbot")] == ["ChatbotStep"] * 3 + ["ChatbotFinalStep"]
    assert len(dialog.transcript[2].tool_calls) == 3 and dialog.transcript[2].content == "A1 is placed."


def test_a_call_repeated_within_a_turn_is_not_run_again_and_the_chatbot_replies_at_once(tmp_path, run_folder,
                                                                                        script):
    script.on(role="user", schema="UserTurn", replies=[say("Check A1."), say("And again?"), stop("success", "ok")])
    script.on(role="chatbot", schema="ChatbotStep", replies=[call("get_order", order_id="A1")] * 3
              + [reply("Still placed.")])
    script.on(role="chatbot", schema="ChatbotFinalStep", reply=reply("A1 is placed."))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    _, _, dialog = play(tmp_path, run_folder, script)
    steps = script.calls(role="chatbot")
    assert [r.schema for r in steps] == ["ChatbotStep"] * 2 + ["ChatbotFinalStep"] + ["ChatbotStep"] * 2
    assert steps[2].messages == steps[1].messages  # the repeat left nothing in the history
    assert [len(dialog.transcript[i].tool_calls) for i in (2, 4)] == [1, 1]  # the next turn may look it up again


def test_native_tool_calls_run_and_their_results_go_back_as_tool_messages(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Check A1."), stop("success", "ok")])
    script.on(role="chatbot", replies=[ToolCalls([("get_order", {"order_id": "A1"})]), "A1 is placed."])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    _, _, dialog = play(tmp_path, run_folder, script, chatbot=NATIVE)
    first, second = script.calls(role="chatbot")
    assert first.tools == ["get_order", "cancel_order", "transfer_to_human"]
    assert second.messages[-1]["role"] == "tool" and '"status": "placed"' in second.messages[-1]["content"]
    (recorded,) = dialog.transcript[2].tool_calls
    assert (recorded.name, recorded.arguments) == ("get_order", {"order_id": "A1"})
    assert recorded.id == second.messages[-1]["tool_call_id"]


def test_arguments_that_are_not_json_are_answered_as_an_error_and_recorded(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Check A1."), *stands("success", "ok")])
    script.on(role="chatbot", replies=[ToolCalls([("get_order", "order A1 please")]), "Which order?"])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    _, _, dialog = play(tmp_path, run_folder, script, chatbot=NATIVE)
    (recorded,) = dialog.transcript[2].tool_calls
    assert recorded.name == "get_order" and recorded.arguments == {"(arguments)": "order A1 please"}
    assert recorded.result.startswith("Error: the arguments of get_order are not a JSON object")
    assert script.calls(role="chatbot")[1].messages[-1]["role"] == "tool"  # the model was told
    assert dialog.status == "pass"


def test_a_turn_that_fails_keeps_the_calls_it_had_made(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1."), stop("success", "ok")])
    script.on(role="chatbot", replies=[ToolCalls([("get_order", {"order_id": "A1"})]),
                                       ToolCalls([("cancel_order", ["A1"])])])  # a list: not arguments at all
    script.on(role="critique", schema="Critique", reply=verdict(True))
    _, _, dialog = play(tmp_path, run_folder, script, chatbot=NATIVE)
    assert dialog.status == "error" and dialog.reason.startswith("chatbot: ")
    (kept,) = dialog.transcript[-1].tool_calls
    assert (kept.name, kept.arguments) == ("get_order", {"order_id": "A1"}) and '"status": "placed"' in kept.result


def test_native_tool_calls_are_bounded_too(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Check A1."), stop("success", "ok")])
    script.on(
        role="chatbot", when=lambda r: "tool_choice" not in r.body, reply=ToolCalls([("get_order", {"order_id": "A1"})])
    )
    script.on(role="chatbot", reply="A1 is placed.")
    script.on(role="critique", schema="Critique", reply=verdict(True))
    _, _, dialog = play(tmp_path, run_folder, script, chatbot=NATIVE)
    assert [r.body.get("tool_choice") for r in script.calls(role="chatbot")] == [None, None, None, "none"]
    assert len(dialog.transcript[2].tool_calls) == 3


@pytest.mark.parametrize(
    ("llm", "setting", "native"),
    [
        ("openai:gpt-4o", "auto", True),
        ("local", "auto", False),
        ("scripted", "auto", False),
        ("local", "yes", True),
        ("openai:gpt-4o", "no", False),
    ],
)
def test_native_tools_auto_means_yes_for_openai_models_only(tmp_path, llm, setting, native):
    config = shop_config(tmp_path, chatbot={"llm": llm, "native_tools": setting})
    assert uses_native_tools(config.chatbot, config.chatbot_llm()) is native


def test_a_json_step_starts_with_a_thought_and_offers_the_tools_before_the_reply(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Hi."), stop("success", "ok")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Hello."))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    play(tmp_path, run_folder, script)
    (request,) = script.calls(role="chatbot")
    schema = request.body["response_format"]["json_schema"]["schema"]
    variants = [ref["$ref"].rsplit("/", 1)[1] for ref in schema["oneOf"]]
    assert variants[-1].endswith("ReplyStep") and all(name.startswith("Call_") for name in variants[:-1])
    assert all(next(iter(schema["$defs"][name]["properties"])) == "thought" for name in variants)
    instructions = request.messages[1]["content"]
    assert instructions.index("get_order: Look up an order.") < instructions.index('"action": "reply"')


def test_an_id_the_user_gave_is_in_view_until_a_call_uses_it(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Please check my order A1."), stop("success", "ok")])
    script.on(role="chatbot", schema="ChatbotStep", replies=[call("get_order", order_id="A1"), reply("A1 is placed.")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    play(tmp_path, run_folder, script)
    first, second = script.calls(role="chatbot")
    assert first.messages[-1]["content"].startswith("Please check my order A1.")
    assert "no tool call has used yet: A1." in first.messages[-1]["content"]
    assert all("no tool call has used yet" not in m["content"] for m in second.messages)


def test_a_reply_that_asks_again_for_a_given_id_is_drawn_once_more(tmp_path, run_folder, script):
    asking = reply("Could you please provide your order ID?")
    script.on(role="user", schema="UserTurn", replies=[say("Cancel my order A1, I confirm."),
                                                       stop("success", "ok")])
    script.on(role="chatbot", schema="ChatbotStep", replies=[asking, call("cancel_order", order_id="A1"),
                                                             reply("Cancelled.")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    _, _, dialog = play(tmp_path, run_folder, script)
    first, again, _ = script.calls(role="chatbot")
    assert "asks the user for a detail it has already given" in again.messages[-1]["content"]
    assert again.body["temperature"] > first.body.get("temperature", 0)
    assert [c.name for c in dialog.transcript[2].tool_calls] == ["cancel_order"]
    assert "provide your order ID" not in dialog.transcript[2].content


def test_a_reply_that_asks_again_a_second_time_is_sent(tmp_path, run_folder, script):
    asking = reply("Could you please provide your order ID?")
    script.on(role="user", schema="UserTurn", replies=[say("Cancel my order A1."), stop("failure", "it asked")])
    script.on(role="chatbot", schema="ChatbotStep", reply=asking)
    script.on(role="critique", schema="Critique", reply=verdict(True))
    _, _, dialog = play(tmp_path, run_folder, script)
    assert len(script.calls(role="chatbot")) == 2 and dialog.transcript[2].content == asking["message"]


def test_a_greeting_longer_than_a_step_s_reply_may_be_is_still_in_the_history(tmp_path, run_folder, script):
    greeting = "Welcome to the shop. " * 40  # past the bound on a JSON step's reply
    script.on(role="user", schema="UserTurn", replies=[say("Check A1."), stop("success", "ok")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("A1 is placed."))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    _, _, dialog = play(tmp_path, run_folder, script, chatbot={"greeting": greeting})
    assert dialog.status == "pass"
    assert greeting.strip() in script.calls(role="chatbot")[0].text
