"""Reading production conversations: chat messages, the plain format and LangSmith runs as one transcript shape,
and a bad line that stops nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from intellagent.errors import UsageError
from intellagent.production.formats import Conversation, Unreadable, read_transcripts
from tests.production.shop_transcripts import A7, CAREFUL_PLAIN, HASTY_CHAT, LANGSMITH_RUN, write_transcripts


def read(path: Path) -> list[Conversation | Unreadable]:
    return list(read_transcripts(path))


def only(record: object, tmp_path: Path) -> Conversation:
    (found,) = read(write_transcripts(tmp_path / "t.jsonl", record, malformed=False))
    assert isinstance(found, Conversation)
    return found


def test_chat_messages_put_each_tool_call_with_its_result_on_the_reply_that_follows(tmp_path: Path) -> None:
    conversation = only(HASTY_CHAT, tmp_path)

    assert [m.role for m in conversation.messages] == ["chatbot", "user", "chatbot"]
    reply = conversation.messages[2]
    assert reply.content == "Done: order A7 is cancelled."
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("get_order", {"order_id": "A7"}),
                                                               ("cancel_order", {"order_id": "A7"})]
    assert json.loads(reply.tool_calls[0].result or "") == A7
    assert reply.tool_calls[1].result == "order A7 cancelled"


def test_the_system_prompt_is_not_a_turn_of_the_conversation(tmp_path: Path) -> None:
    assert all("shop's assistant" not in m.content for m in only(HASTY_CHAT, tmp_path).messages)


def test_the_plain_format_reads_turns_and_calls_with_object_results(tmp_path: Path) -> None:
    conversation = only(CAREFUL_PLAIN, tmp_path)

    assert [m.role for m in conversation.messages] == ["chatbot", "user", "chatbot", "user", "chatbot"]
    assert conversation.messages[2].tool_calls[0].result == json.dumps(CAREFUL_PLAIN["turns"][2]["calls"][0]["result"])
    assert conversation.name == "plain-careful"


def test_a_langsmith_run_is_its_input_messages_then_its_generation(tmp_path: Path) -> None:
    conversation = only(LANGSMITH_RUN, tmp_path)

    assert [(m.role, m.content) for m in conversation.messages] == [
        ("user", "What is the status of my order C5?"), ("chatbot", "Order C5 has shipped.")]
    (call,) = conversation.messages[1].tool_calls
    assert (call.name, call.arguments, json.loads(call.result or "")["status"]) == ("get_order", {"order_id": "C5"},
                                                                                   "shipped")


def test_a_langsmith_chain_run_with_openai_messages_in_its_outputs_is_read(tmp_path: Path) -> None:
    run = {"id": "r2", "run_type": "chain",
           "inputs": {"messages": [{"role": "user", "content": "Hi, cancel B2"}]},
           "outputs": {"messages": [{"role": "user", "content": "Hi, cancel B2"},
                                    {"role": "assistant", "content": "Shall I cancel B2?"}]}}

    assert [m.content for m in only(run, tmp_path).messages] == ["Hi, cancel B2", "Shall I cancel B2?"]


def test_a_malformed_line_is_reported_with_its_number_and_the_next_lines_are_read(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([json.dumps(HASTY_CHAT), "{not json", json.dumps({"turns": "nope"}), "",
                               json.dumps(CAREFUL_PLAIN)]) + "\n")

    found = read(path)

    assert [(type(f).__name__, f.number, f.place) for f in found] == [
        ("Conversation", 1, "line 1"), ("Unreadable", 2, "line 2"), ("Unreadable", 3, "line 3"),
        ("Conversation", 4, "line 5")]
    assert "not JSON" in found[1].reason  # type: ignore[union-attr]
    assert "`turns` is not a list" in found[2].reason  # type: ignore[union-attr]


@pytest.mark.parametrize(("record", "why"), [
    ({"messages": [{"role": "user", "content": "hello?"}]}, "user and the chatbot both"),
    ({"messages": [{"role": "wizard", "content": "hi"}]}, "unknown role"),
    ({"turns": [{"chatbot": "hi", "calls": [{"arguments": {}}]}, {"user": "x"}]}, "without a name"),
    ({"text": "hello"}, "in no format read here"),
])
def test_a_line_that_is_no_conversation_says_why(record: object, why: str, tmp_path: Path) -> None:
    (found,) = read(write_transcripts(tmp_path / "t.jsonl", record, malformed=False))
    assert isinstance(found, Unreadable) and why in found.reason


def test_a_missing_file_is_a_one_line_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not found"):
        read(tmp_path / "nowhere.jsonl")


def test_a_langsmith_chain_run_whose_outputs_hold_only_what_it_added_is_read(tmp_path: Path) -> None:
    run = {"id": "r3", "run_type": "chain",
           "inputs": {"messages": [{"type": "human", "content": "Cancel B2"}]},
           "outputs": {"messages": [{"type": "ai", "content": "", "tool_calls": [
               {"id": "t", "name": "get_order", "args": {"order_id": "B2"}}]},
               {"type": "tool", "tool_call_id": "t", "content": "placed"},
               {"type": "ai", "content": "B2 is placed; shall I cancel it?"}]}}

    (user, chatbot) = only(run, tmp_path).messages

    assert (user.content, chatbot.content) == ("Cancel B2", "B2 is placed; shall I cancel it?")
    assert [(c.name, c.result) for c in chatbot.tool_calls] == [("get_order", "placed")]
