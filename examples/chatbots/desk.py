"""A rule-based airline help desk: the smallest chatbot to try the adapters with.

It has no model. When the user names a reservation it looks it up in the dialog's world, and it
cancels it once the user, having asked for a cancellation, answers "yes"; anything else goes to a human.
Its decisions are plain functions (`next_step`, `after_tool`), so the Python, LangGraph and HTTP
versions of the desk share them. Point a config at this one with:

    chatbot:
      type: python
      target: examples.chatbots.desk:reply
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

RESERVATION_ID = re.compile(r"\b[A-Z0-9]{6}\b")
REQUESTS = ("book", "cancel", "change", "modify", "refund", "baggage", "bag", "compensation")
YES = re.compile(r"^\W*(yes|yeah|yep|sure|please do|go ahead)\b", re.IGNORECASE)


@dataclass(frozen=True)
class ToolRequest:
    """A tool the desk wants to call on the world."""

    name: str
    arguments: dict[str, Any]


def next_step(messages: list[dict[str, str]]) -> ToolRequest | str:
    """What the desk does about the user's last message: call a tool, or reply with this text."""
    text = messages[-1]["content"]
    reservation = _last_reservation(messages)
    if reservation and YES.search(text) and _wants_cancellation(messages):
        return ToolRequest("cancel_reservation", {"reservation_id": reservation})
    if reservation and RESERVATION_ID.search(text):
        return ToolRequest("get_reservation_details", {"reservation_id": reservation})
    if any(word in text.lower() for word in REQUESTS):
        return "I can help with that. What is your reservation id?"
    return "Could you tell me what you need: a booking, a change, a cancellation or a refund?"


def after_tool(request: ToolRequest, result: str, messages: list[dict[str, str]]) -> str:
    """The desk's reply once the tool it asked for has answered."""
    reservation = request.arguments["reservation_id"]
    if result.startswith("Error"):
        return f"I could not do that for {reservation} ({result}). A human agent will follow up by email."
    if request.name == "cancel_reservation":
        return f"Reservation {reservation} is cancelled; the refund goes back to the original payment methods."
    if _wants_cancellation(messages):
        return f"I found reservation {reservation}. Shall I cancel it? Please answer yes to confirm."
    return f"I found reservation {reservation}. What would you like to do with it?"


def answer(messages: list[dict[str, str]]) -> str:
    """The desk's reply when it has no world to act on: a reservation is noted for a human."""
    step = next_step(messages)
    if isinstance(step, str):
        return step
    return f"Thank you. I have noted reservation {step.arguments['reservation_id']}; a human agent will follow up."


def reply(messages: list[dict[str, str]], session: Any) -> str:
    """The next reply, acting on the dialog's world through `session.tools` (a `python` chatbot's signature)."""
    step = next_step(messages)
    tools = {tool.name: tool for tool in session.tools}
    if isinstance(step, str) or step.name not in tools:
        return answer(messages)
    return after_tool(step, tools[step.name].invoke(step.arguments), messages)


def _last_reservation(messages: list[dict[str, str]]) -> str | None:
    said = [RESERVATION_ID.findall(m["content"]) for m in messages if m["role"] == "user"]
    found = [reservation for ids in said for reservation in ids]
    return found[-1] if found else None


def _wants_cancellation(messages: list[dict[str, str]]) -> bool:
    return any("cancel" in m["content"].lower() for m in messages if m["role"] == "user")
