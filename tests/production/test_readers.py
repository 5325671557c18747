"""Each format's reader on its example file (examples/production/, each written in its format as the tool that keeps
it writes it): the same two airline conversations as the plain twin, every tool call with its result, the parts of
one conversation put back together; and a broken record reported with its place, the rest read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from intellagent.production.formats import Conversation, Unreadable, read_transcripts
from intellagent.production.otel_spans import NO_CONTENT
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "production"
FILES = {
    "chat": "airline_chat.jsonl",
    "chat_completions": "airline_chat_completions.jsonl",
    "anthropic": "airline_anthropic.jsonl",
    "responses": "airline_responses.jsonl",
    "langsmith": "airline_langsmith.jsonl",
    "langfuse": "airline_langfuse.json",
    "otel": "airline_otel.json",
}


def shape(found: Conversation | Unreadable) -> list[tuple[str, str, list[tuple[str, dict[str, Any], Any]]]]:
    """A conversation as the judge reads it: each message, with its calls, their arguments and results."""
    assert isinstance(found, Conversation), found
    return [(m.role, m.content, [(c.name, c.arguments, json.loads(c.result or "null")) for c in m.tool_calls])
            for m in found.messages]


def twin() -> list[list[Any]]:
    return [shape(found) for found in read_transcripts(EXAMPLES / "airline_plain.jsonl")]


@pytest.mark.parametrize("fmt", sorted(FILES))
def test_each_format_reads_the_same_conversations_as_its_plain_twin(fmt: str) -> None:
    assert [shape(found) for found in read_transcripts(EXAMPLES / FILES[fmt])] == twin()


@pytest.mark.parametrize("fmt", sorted(FILES))
def test_each_format_reads_the_same_whether_named_or_recognised(fmt: str) -> None:
    named = read_transcripts(EXAMPLES / FILES[fmt], fmt)

    assert [shape(found) for found in named] == twin()
    assert fmt in {found.format for found in read_transcripts(EXAMPLES / FILES[fmt]) if isinstance(found, Conversation)}


@pytest.mark.parametrize("fmt", sorted(FILES))
def test_every_call_and_result_is_counted_per_conversation(fmt: str) -> None:
    read = [found for found in read_transcripts(EXAMPLES / FILES[fmt]) if isinstance(found, Conversation)]

    assert [(found.calls, found.results, found.orphans) for found in read] == [(2, 2, 0), (2, 2, 0)]


def test_a_record_of_another_format_than_the_one_named_is_reported_and_skipped() -> None:
    found = read_transcripts(EXAMPLES / "airline_plain.jsonl", "otel")

    assert [(type(f).__name__, f.place) for f in found] == [("Unreadable", "line 1"), ("Unreadable", "line 2")]
    assert all("OTLP" in f.reason for f in found if isinstance(f, Unreadable))


def test_langsmith_runs_nested_in_one_trace_are_one_conversation(tmp_path: Path) -> None:
    runs = [json.loads(line) for line in (EXAMPLES / FILES["langsmith"]).read_text().splitlines()]
    hasty = [run for run in runs if run["trace_id"].endswith("3")]

    found = read_transcripts(_written(tmp_path / "runs.jsonl", hasty))

    assert len(hasty) == 6 and {run["parent_run_id"] for run in hasty[1:]} == {hasty[0]["id"]}
    (conversation,) = found
    assert shape(conversation) == twin()[1]
    assert conversation.name == hasty[0]["trace_id"]


def test_langsmith_traces_of_one_thread_are_one_conversation_in_any_order_of_the_file(tmp_path: Path) -> None:
    runs = [json.loads(line) for line in (EXAMPLES / FILES["langsmith"]).read_text().splitlines()]
    careful = [run for run in runs if run.get("extra", {}).get("metadata", {}).get("thread_id") == "conv-0414"]

    (conversation,) = read_transcripts(_written(tmp_path / "runs.jsonl", careful[::-1]))

    assert len({run["trace_id"] for run in careful}) == 2
    assert shape(conversation) == twin()[0]


def test_a_line_that_is_not_json_among_call_logs_is_reported_and_the_calls_still_make_their_conversations(
        tmp_path: Path) -> None:
    lines = (EXAMPLES / FILES["chat_completions"]).read_text().splitlines()
    path = tmp_path / "calls.jsonl"
    path.write_text("\n".join([*lines[:3], '{"request": {"messages": [', *lines[3:]]) + "\n")

    found = read_transcripts(path)

    assert [(type(f).__name__, f.place) for f in found] == [
        ("Conversation", "line 1 and 3 more parts"), ("Conversation", "line 2 and 2 more parts"),
        ("Unreadable", "line 4")]
    assert [shape(f) for f in found[:2]] == twin()


def test_a_span_whose_messages_are_not_json_is_reported_with_its_place_and_the_rest_is_read(tmp_path: Path) -> None:
    export = json.loads((EXAMPLES / FILES["otel"]).read_text())
    spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
    _attribute(spans[3], "gen_ai.input.messages")["value"] = {"stringValue": '[{"role": "user", "parts": ['}

    found = read_transcripts(_written(tmp_path / "export.json", export))

    broken = [f for f in found if isinstance(f, Unreadable)]
    assert [(f.place, f.reason) for f in broken] == [("the document, span 4", "`gen_ai.input.messages` is not JSON")]
    assert [shape(f) for f in found if isinstance(f, Conversation)] == twin()  # the later spans hold the history


def test_a_model_call_span_without_its_messages_says_the_content_was_not_recorded(tmp_path: Path) -> None:
    export = json.loads((EXAMPLES / FILES["otel"]).read_text())
    for span in export["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["attributes"] = [a for a in span["attributes"] if not a["key"].endswith("messages")]

    found = read_transcripts(_written(tmp_path / "export.json", export))

    assert all(isinstance(f, Unreadable) for f in found)
    assert [f.place for f in found if f.reason == NO_CONTENT] == [  # type: ignore[union-attr]
        f"the document, span {n}" for n in (2, 4, 6, 8, 10, 12, 14)]  # each model call's span


def test_a_langfuse_observation_that_cannot_be_read_is_reported_within_its_trace(tmp_path: Path) -> None:
    traces = json.loads((EXAMPLES / FILES["langfuse"]).read_text())
    traces[2]["observations"][2]["input"][1] = {"role": "wizard", "content": "?"}

    found = read_transcripts(_written(tmp_path / "traces.json", traces))

    broken = [f for f in found if isinstance(f, Unreadable)]
    assert [(f.place, f.reason) for f in broken] == [("item 3, observation 3", "a message of unknown role 'wizard'")]
    assert [shape(f) for f in found if isinstance(f, Conversation)] == twin()


def test_anthropic_tool_use_and_tool_result_blocks_are_calls_with_their_results(tmp_path: Path) -> None:
    (record,) = [json.loads(line) for line in (EXAMPLES / FILES["anthropic"]).read_text().splitlines()
                 if '"hasty-0415"' in line]

    (conversation,) = read_transcripts(_written(tmp_path / "messages.jsonl", [record]))

    (reply,) = [m for m in conversation.messages if m.role == "chatbot"]
    assert [(c.id, c.name) for c in reply.tool_calls] == [("toolu_03", "get_reservation_details"),
                                                          ("toolu_04", "cancel_reservation")]
    assert json.loads(reply.tool_calls[1].result or "")["status"] == "cancelled"


def test_responses_chained_by_previous_response_id_are_one_conversation_in_any_order(tmp_path: Path) -> None:
    lines = (EXAMPLES / FILES["responses"]).read_text().splitlines()
    chained = [json.loads(line) for line in lines[:4]]

    (conversation,) = read_transcripts(_written(tmp_path / "responses.jsonl", [chained[i] for i in (2, 0, 3, 1)]))

    assert shape(conversation) == twin()[0]
    assert conversation.name == "resp_01"


OTHER_OTEL_SHAPES = {
    # The earlier per-message events, their fields in gen_ai.event.content.
    "events": {"attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}], "events": [
        {"name": "gen_ai.user.message", "attributes": [{"key": "gen_ai.event.content", "value": {
            "stringValue": '{"content": "I\'m mia_li_3668 and I need to cancel reservation NO6JO3."}'}}]},
        {"name": "gen_ai.assistant.message", "attributes": [{"key": "gen_ai.event.content", "value": {
            "stringValue": '{"tool_calls": [{"id": "call_g2", "type": "function", "function": {"name": '
                           '"get_reservation_details", "arguments": "{\\"reservation_id\\": \\"NO6JO3\\"}"}}]}'}}]},
        {"name": "gen_ai.tool.message", "attributes": [{"key": "id", "value": {"stringValue": "call_g2"}}]},
        {"name": "gen_ai.assistant.message", "attributes": [{"key": "gen_ai.event.content", "value": {
            "stringValue": '{"tool_calls": [{"id": "call_c2", "type": "function", "function": {"name": '
                           '"cancel_reservation", "arguments": "{\\"reservation_id\\": \\"NO6JO3\\"}"}}]}'}}]},
        {"name": "gen_ai.choice", "attributes": [{"key": "gen_ai.event.content", "value": {
            "stringValue": '{"index": 0, "finish_reason": "stop", "message": {"content": '
                           '"Done: reservation NO6JO3 has been cancelled."}}'}}]}]},
    # Indexed attributes, as OpenLLMetry records them.
    "indexed": {"attributes": [{"key": key, "value": {"stringValue": value}} for key, value in [
        ("gen_ai.prompt.0.role", "system"), ("gen_ai.prompt.0.content", "You are the airline's agent."),
        ("gen_ai.prompt.1.role", "user"),
        ("gen_ai.prompt.1.content", "I'm mia_li_3668 and I need to cancel reservation NO6JO3."),
        ("gen_ai.prompt.2.role", "assistant"), ("gen_ai.prompt.2.tool_calls.0.id", "call_g2"),
        ("gen_ai.prompt.2.tool_calls.0.name", "get_reservation_details"),
        ("gen_ai.prompt.2.tool_calls.0.arguments", '{"reservation_id": "NO6JO3"}'),
        ("gen_ai.prompt.3.role", "tool"), ("gen_ai.prompt.3.tool_call_id", "call_g2"),
        ("gen_ai.prompt.4.role", "assistant"), ("gen_ai.prompt.4.tool_calls.0.id", "call_c2"),
        ("gen_ai.prompt.4.tool_calls.0.name", "cancel_reservation"),
        ("gen_ai.prompt.4.tool_calls.0.arguments", '{"reservation_id": "NO6JO3"}'),
        ("gen_ai.completion.0.role", "assistant"),
        ("gen_ai.completion.0.content", "Done: reservation NO6JO3 has been cancelled.")]]},
    # OpenInference's indexed attributes, as Phoenix records them.
    "openinference": {"attributes": [{"key": key, "value": {"stringValue": value}} for key, value in [
        ("openinference.span.kind", "LLM"), ("llm.input_messages.0.message.role", "user"),
        ("llm.input_messages.0.message.content", "I'm mia_li_3668 and I need to cancel reservation NO6JO3."),
        ("llm.input_messages.1.message.role", "assistant"),
        ("llm.input_messages.1.message.tool_calls.0.tool_call.id", "call_g2"),
        ("llm.input_messages.1.message.tool_calls.0.tool_call.function.name", "get_reservation_details"),
        ("llm.input_messages.1.message.tool_calls.0.tool_call.function.arguments", '{"reservation_id": "NO6JO3"}'),
        ("llm.input_messages.2.message.role", "tool"), ("llm.input_messages.2.message.tool_call_id", "call_g2"),
        ("llm.input_messages.3.message.role", "assistant"),
        ("llm.input_messages.3.message.tool_calls.0.tool_call.id", "call_c2"),
        ("llm.input_messages.3.message.tool_calls.0.tool_call.function.name", "cancel_reservation"),
        ("llm.input_messages.3.message.tool_calls.0.tool_call.function.arguments", '{"reservation_id": "NO6JO3"}'),
        ("llm.output_messages.0.message.role", "assistant"),
        ("llm.output_messages.0.message.content", "Done: reservation NO6JO3 has been cancelled.")]]},
}
"""The hasty conversation's last model call, recorded in the other ways instrumentations record GenAI spans; the
tool results come from the tool spans (`tool_span`), as the messages here leave them out."""


def tool_span(number: int, call_id: str, name: str, result: Any) -> dict[str, Any]:
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.id": call_id,
                  "gen_ai.tool.call.result": json.dumps(result)}
    return {"traceId": "4bf9", "spanId": f"s{number}", "startTimeUnixNano": str(number), "name": f"execute_tool {name}",
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()]}


@pytest.mark.parametrize("recorded", sorted(OTHER_OTEL_SHAPES))
def test_genai_spans_recorded_as_events_or_indexed_attributes_read_as_the_same_conversation(recorded: str,
                                                                                          tmp_path: Path) -> None:
    results = {call: result for _, _, calls in twin()[1][1:] for call, _, result in calls}
    model_call = {"traceId": "4bf9", "spanId": "s9", "startTimeUnixNano": "9", "name": "chat gpt-4o",
                  **OTHER_OTEL_SHAPES[recorded]}
    spans = [tool_span(1, "call_g2", "get_reservation_details", results["get_reservation_details"]),
             tool_span(2, "call_c2", "cancel_reservation", results["cancel_reservation"]), model_call]
    export = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}

    (conversation,) = read_transcripts(_written(tmp_path / "export.json", export))

    assert shape(conversation) == twin()[1]


def _attribute(span: dict[str, Any], key: str) -> dict[str, Any]:
    return next(a for a in span["attributes"] if a["key"] == key)


def _written(path: Path, value: Any) -> Path:
    """`value` as a JSONL file of its items, or a JSON document."""
    text = "\n".join(json.dumps(item) for item in value) if path.suffix == ".jsonl" else json.dumps(value, indent=1)
    path.write_text(text + "\n", encoding="utf-8")
    return path
