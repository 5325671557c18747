"""Each kind of chatbot under test, chosen in the config or passed as an object, plays a whole dialog."""

from __future__ import annotations

import asyncio
import time

import pytest
from langchain_core.tools import tool
from scripted_dialogs import dialogs, event, say, shop_config, simulate, stands, verdict

from examples.chatbots.graph_desk import build as build_desk_graph
from intellagent.chatbots import ChatbotReply, ChatbotSession
from intellagent.errors import UsageError


def play(tmp_path, run_folder, script, *, chatbot_settings=None, user_says=("I want to cancel a flight.",), **options):
    script.on(role="user", schema="UserTurn", replies=[*(say(text) for text in user_says), *stands("success", "ok")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    config = shop_config(tmp_path, chatbot=chatbot_settings or {})
    folder = run_folder(config, [event()])
    simulate(config, folder, script, **options)
    return dialogs(folder)[0]


def replies(dialog) -> list[str]:
    return [m.content for m in dialog.transcript if m.role == "chatbot"][1:]


def test_python_target_from_the_config(tmp_path, run_folder, script):
    dialog = play(
        tmp_path, run_folder, script, chatbot_settings={"type": "python", "target": "examples.chatbots.desk:reply"}
    )
    assert dialog.status == "pass"
    assert replies(dialog) == ["I can help with that. What is your reservation id?"]


def test_a_callable_gets_the_public_conversation_and_the_session_id(tmp_path, run_folder, script):
    seen = []

    def bot(messages, session_id):
        seen.append((session_id, messages))
        return "Noted."

    play(tmp_path, run_folder, script, chatbot=bot, user_says=("First.", "Second."))
    assert [session for session, _ in seen] == ["S001", "S001"]
    assert seen[1][1] == [
        {"role": "assistant", "content": "Hello! How can I help you today?"},
        {"role": "user", "content": "First."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Second."},
    ]


def test_an_async_callable_may_report_its_tool_calls(tmp_path, run_folder, script):
    async def bot(messages):
        await asyncio.sleep(0)
        return {
            "content": "A1 is placed.",
            "tool_calls": [{"name": "lookup", "arguments": {"id": "A1"}, "result": {"ok": True}}],
        }

    dialog = play(tmp_path, run_folder, script, chatbot=bot)
    (recorded,) = dialog.transcript[2].tool_calls
    assert (recorded.id, recorded.name, recorded.arguments, recorded.result) == (
        "call_1",
        "lookup",
        {"id": "A1"},
        '{"ok": true}',
    )


def test_a_reply_of_the_wrong_shape_is_an_error(tmp_path, run_folder, script):
    dialog = play(tmp_path, run_folder, script, chatbot=lambda messages: {"text": "hi"})
    assert dialog.status == "error" and "a mapping with a string 'content'" in dialog.reason


def test_langgraph_factory_target_from_the_config(tmp_path, run_folder, script):
    settings = {"type": "langgraph", "target": "examples.chatbots.graph_desk:build"}
    dialog = play(tmp_path, run_folder, script, chatbot_settings=settings, user_says=("Hello.", "I want to cancel."))
    assert replies(dialog) == [
        "Could you tell me what you need: a booking, a change, a cancellation or a refund?",
        "I can help with that. What is your reservation id?",
    ]


@tool
def get_reservation_details(reservation_id: str) -> str:
    """Look a reservation up in the desk's own records.

    Args:
        reservation_id: six letters and digits.
    """
    return f"no record of {reservation_id} at this desk"


def test_a_compiled_graph_can_be_passed_as_the_chatbot_and_its_own_tool_calls_are_recorded(
    tmp_path, run_folder, script
):
    graph = build_desk_graph([get_reservation_details])
    dialog = play(tmp_path, run_folder, script, chatbot=graph, user_says=("Hello.", "It is XYZ789."))
    first, second = dialog.transcript[2], dialog.transcript[4]
    assert not first.tool_calls
    (recorded,) = second.tool_calls
    assert (recorded.name, recorded.arguments, recorded.result, recorded.reported) == (
        "get_reservation_details", {"reservation_id": "XYZ789"}, "no record of XYZ789 at this desk", True
    )
    assert recorded.id.startswith("get_reservation_details-")
    assert second.content.startswith("I found reservation XYZ789")


def test_an_adapter_object_can_be_passed_as_the_chatbot(tmp_path, run_folder, script):
    class Parrot:
        def open(self, session: ChatbotSession):
            return self

        async def reply(self, messages):
            return ChatbotReply(content=f"You said: {messages[-1]['content']}")

    dialog = play(tmp_path, run_folder, script, chatbot=Parrot(), user_says=("Hi.",))
    assert replies(dialog) == ["You said: Hi."]


def test_the_example_desk_over_http_reaches_the_dialogs_world_by_mcp(tmp_path, run_folder, script, desk_server):
    settings = {"type": "http", "url": f"{desk_server}/chat"}
    dialog = play(tmp_path, run_folder, script, chatbot_settings=settings, user_says=("It is ABC123.",))
    assert dialog.status == "pass"
    (call,) = dialog.transcript[2].tool_calls  # the airline desk asks the shop's world for a tool it lacks
    assert (call.name, call.reported) == ("get_reservation_details", False)
    assert call.result.startswith("Error: unknown tool 'get_reservation_details'; the tools are get_order")
    assert replies(dialog) == [
        f"I could not do that for ABC123 ({call.result}). A human agent will follow up by email."
    ]


def test_http_sends_session_messages_and_key_and_records_reported_tool_calls(
    tmp_path, run_folder, script, server, monkeypatch
):
    monkeypatch.setenv("SHOP_BOT_KEY", "s3cret")
    seen = []

    def answer(path, body, headers):
        seen.append((path, body, headers.get("Authorization"), headers.get("X-IntellAgent-MCP")))
        return 200, {"reply": "Done.", "tool_calls": [{"name": "cancel", "arguments": {"id": "A1"}, "result": "ok"}]}

    url = server(answer) + "/bot"
    dialog = play(
        tmp_path, run_folder, script, chatbot_settings={"type": "http", "url": url, "api_key_env": "SHOP_BOT_KEY"}
    )
    ((path, body, authorization, mcp_url),) = seen
    assert (path, authorization) == ("/bot", "Bearer s3cret")
    assert mcp_url.startswith("http://127.0.0.1:") and mcp_url.endswith("/dialogs/S001/mcp")
    assert body == {
        "session_id": "S001",
        "mcp_url": mcp_url,
        "messages": [
            {"role": "assistant", "content": "Hello! How can I help you today?"},
            {"role": "user", "content": "I want to cancel a flight."},
        ],
    }
    assert [(c.name, c.result, c.reported) for c in dialog.transcript[2].tool_calls] == [("cancel", "ok", True)]
    assert "s3cret" not in (tmp_path / "run" / "dialogs.jsonl").read_text()


def test_an_http_error_status_is_a_dialog_error(tmp_path, run_folder, script, server):
    url = server(lambda path, body, headers: (503, "overloaded"))
    dialog = play(tmp_path, run_folder, script, chatbot_settings={"type": "http", "url": url})
    assert dialog.status == "error" and dialog.reason == f"chatbot: {url} answered HTTP 503: overloaded"


def test_an_http_timeout_is_a_dialog_error(tmp_path, run_folder, script, server):
    def slow(path, body, headers):
        time.sleep(1.0)
        return 200, {"reply": "too late"}

    url = server(slow)
    dialog = play(tmp_path, run_folder, script, chatbot_settings={"type": "http", "url": url, "timeout": 0.2})
    assert dialog.status == "error" and "gave no reply within 0.2s (chatbot.timeout)" in dialog.reason


def test_openai_compatible_endpoint_of_the_example_desk(tmp_path, run_folder, script, desk_server):
    settings = {"type": "openai", "model": "desk", "base_url": f"{desk_server}/v1"}
    dialog = play(tmp_path, run_folder, script, chatbot_settings=settings)
    assert replies(dialog) == ["I can help with that. What is your reservation id?"]
    assert dialog.usage["chatbot"].calls == 1


def test_openai_endpoint_gets_the_conversation_without_a_system_prompt(tmp_path, run_folder, script, server):
    seen = []

    def answer(path, body, headers):
        seen.append((path, body))
        message = {"role": "assistant", "content": "Sure."}
        return 200, {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "bot",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        }

    settings = {"type": "openai", "model": "bot", "base_url": server(answer) + "/v1"}
    play(tmp_path, run_folder, script, chatbot_settings=settings)
    ((path, body),) = seen
    assert path == "/v1/chat/completions" and body["model"] == "bot"
    assert [m["role"] for m in body["messages"]] == ["assistant", "user"]


def test_a_target_that_does_not_import_is_a_usage_error_before_any_dialog(tmp_path, run_folder, script):
    config = shop_config(tmp_path, chatbot={"type": "python", "target": "examples.chatbots.nowhere:reply"})
    folder = run_folder(config, [event()])
    with pytest.raises(UsageError, match=r"module examples\.chatbots\.nowhere not found"):
        simulate(config, folder, script)
    assert not script.requests and not dialogs(folder)
