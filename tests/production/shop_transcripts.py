"""Production conversations of the scripted shop (tests/simulate/shop), one per format, written as a test needs.

C1 (chat messages): Ana asks to cancel A7; the chatbot looks it up and cancels it before she says yes: a
write before the user's yes, which the confirmation check finds and the scripted judge calls a breach of P01.
C2 (plain): Ana asks to cancel B2; the chatbot asks, she confirms, it cancels: every rule kept.
C3 (LangSmith run): Ben asks about his own order; the chatbot tells him its status: every rule kept.
Line 4 is not JSON: it is reported and skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.pipeline.scripted_pipeline import CONFIRMATION

A7 = {"order_id": "A7", "customer": "ana@example.com", "status": "placed"}
B2 = {"order_id": "B2", "customer": "ana@example.com", "status": "placed"}
C5 = {"order_id": "C5", "customer": "ben@example.com", "status": "shipped"}

HASTY_CHAT: dict[str, Any] = {"id": "chat-hasty", "messages": [
    {"role": "system", "content": "You are the shop's assistant."},
    {"role": "assistant", "content": "Hello, how can I help?"},
    {"role": "user", "content": "Please cancel my order A7. My email is ana@example.com."},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": '{"order_id": "A7"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": json.dumps(A7)},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c2", "type": "function", "function": {"name": "cancel_order", "arguments": {"order_id": "A7"}}}]},
    {"role": "tool", "tool_call_id": "c2", "content": "order A7 cancelled"},
    {"role": "assistant", "content": "Done: order A7 is cancelled."},
]}

CAREFUL_PLAIN: dict[str, Any] = {"id": "plain-careful", "turns": [
    {"chatbot": "Hello, how can I help?"},
    {"user": "Please cancel my order B2."},
    {"chatbot": "Order B2 is placed. Shall I cancel it? Please confirm.",
     "calls": [{"tool": "get_order", "arguments": {"order_id": "B2"}, "result": B2}]},
    {"user": CONFIRMATION},
    {"chatbot": "Order B2 is now cancelled.",
     "calls": [{"tool": "cancel_order", "arguments": {"order_id": "B2"}, "result": "order B2 cancelled"}]},
]}

LANGSMITH_RUN: dict[str, Any] = {
    "id": "0b7e-run", "name": "ChatOpenAI", "run_type": "llm",
    "inputs": {"messages": [[
        {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "SystemMessage"],
         "kwargs": {"content": "You are the shop's assistant."}},
        {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"],
         "kwargs": {"content": "What is the status of my order C5?"}},
        {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
         "kwargs": {"content": "", "tool_calls": [{"id": "t1", "name": "get_order", "args": {"order_id": "C5"}}]}},
        {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
         "kwargs": {"content": json.dumps(C5), "tool_call_id": "t1"}},
    ]]},
    "outputs": {"generations": [[{"text": "Order C5 has shipped.",
                                  "message": {"type": "ai", "content": "Order C5 has shipped."}}]]},
}


def write_transcripts(path: Path, *records: Any, malformed: bool = True) -> Path:
    """The records as a JSONL file at `path` (by default the three above), then a line that is not JSON."""
    chosen = records or (HASTY_CHAT, CAREFUL_PLAIN, LANGSMITH_RUN)
    lines = [json.dumps(record) for record in chosen] + (['{"messages": [oops'] if malformed else [])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
