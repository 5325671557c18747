"""LangSmith runs, as a project exports them: one run per record, a conversation per trace.

A run is `{"id", "trace_id", "parent_run_id", "dotted_order", "run_type", "inputs", "outputs"}`. The runs of one
trace (a chain and the model and tool runs nested in it) are one conversation, put together in their order
(`dotted_order`, else `start_time`); the traces of one thread (`thread_id`, `session_id` or `conversation_id` in
the run's metadata) are one conversation too. A run shows the conversation it was given (`inputs.messages`, one
list or one per prompt; `inputs.chat_history` and `inputs.input`) and what it answered (`outputs.messages`,
`outputs.generations`, `outputs.choices`, `outputs.output`); a tool run (`run_type: tool`) gives its output to the
call it answers.
"""

from __future__ import annotations

from typing import Any

from intellagent.production.chat_logs import said
from intellagent.production.entries import Entry, NotAConversation, entries, result_text
from intellagent.production.threads import Part, Place

_THREAD_KEYS = ("thread_id", "session_id", "conversation_id")


def is_langsmith(record: Any) -> bool:
    """Whether a record is a LangSmith run."""
    return isinstance(record, dict) and ("run_type" in record or isinstance(record.get("inputs"), dict))


def langsmith_parts(record: Any, place: Place) -> list[Part]:
    """What one run shows of its trace's conversation.

    Raises:
        NotAConversation: it is not a run, or shows a message it cannot read.
    """
    if not is_langsmith(record):
        raise NotAConversation("holds no LangSmith `run_type` or `inputs`")
    metadata = {**_dict(record.get("metadata")), **_dict(_dict(record.get("extra")).get("metadata"))}
    thread = next((str(metadata[key]) for key in _THREAD_KEYS if metadata.get(key)), None)
    trace = str(record.get("trace_id") or record.get("id") or "")
    thread = f"thread {thread}" if thread else f"trace {trace}" if trace else f"record {place.record}"
    at = str(record.get("dotted_order") or record.get("start_time") or "")
    name = thread.split(" ", 1)[1] if not thread.startswith("record") else ""
    if record.get("run_type") == "tool":
        return [Part(place=place, entries=(), thread=thread, name=name, at=at, results=tuple(_tool_result(record)))]
    inputs, outputs = _dict(record.get("inputs")), _dict(record.get("outputs"))
    given, answered = _given(inputs), _answered(outputs)
    repeated = len(given) if answered[:len(given)] == given else 0  # a chain's state: the whole conversation again
    summary = "messages" not in inputs and "messages" not in outputs  # a chain's input and output: its words only
    return [Part(place=place, entries=(*given, *answered[repeated:]), thread=thread, name=name, at=at,
                 summary=summary)]


def _given(inputs: dict[str, Any]) -> list[Entry]:
    """The conversation a run was given."""
    messages = inputs.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[0], list):  # a model run: a list per prompt
        messages = messages[0]
    found = said(inputs.get("chat_history") or [], key="inputs.chat_history")
    found += said(messages, key="inputs.messages") if messages is not None else []
    if isinstance(inputs.get("input"), str):
        found.append(Entry("user", inputs["input"]))
    return found


def _answered(outputs: dict[str, Any]) -> list[Entry]:
    """What a run answered: its messages, its first generation or choice, or its output."""
    if isinstance(outputs.get("messages"), list):
        return said(outputs["messages"], key="outputs.messages")
    generations = outputs.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0][0] if isinstance(generations[0], list) and generations[0] else generations[0]
        first = _dict(first)
        return entries(first.get("message") or {"role": "assistant", "content": first.get("text", "")})
    choices = outputs.get("choices")
    if isinstance(choices, list) and choices:
        return entries(_dict(choices[0]).get("message", {}))
    output = outputs.get("output")
    if output is None:
        return []
    return entries(output) if isinstance(output, dict) else [Entry("chatbot", result_text(output))]


def _tool_result(run: dict[str, Any]) -> list[Entry]:
    """A tool run's output, as the result of the call it answers (by the call's id, when the output names it)."""
    output = _dict(run.get("outputs")).get("output")
    if isinstance(output, dict) and (output.get("lc") == 1 or output.get("type") == "tool" or "tool_call_id" in output):
        return [entry for entry in entries({**output, "type": "tool"} if "lc" not in output else output)
                if entry.role == "tool"]
    if output is None and run.get("error"):
        return [Entry("tool", result_text(run["error"], error=True), tool=run.get("name"))]
    return [] if output is None else [Entry("tool", result_text(output), tool=run.get("name"))]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
