"""A rule-based airline help desk: the smallest chatbot to try the `python` adapter with.

It has no model and no tools; it answers from keywords, and hands anything concrete over to a human.
Point a config at it with:

    chatbot:
      type: python
      target: examples.chatbots.desk:reply
"""

from __future__ import annotations

import re

RESERVATION_ID = re.compile(r"\b[A-Z0-9]{6}\b")
REQUESTS = ("book", "cancel", "change", "modify", "refund", "baggage", "bag", "compensation")


def answer(messages: list[dict[str, str]]) -> str:
    """The desk's answer to the last message of a conversation."""
    text = messages[-1]["content"]
    found = RESERVATION_ID.search(text)
    if found:
        return f"Thank you. I have noted reservation {found.group()}; a human agent will follow up by email."
    if any(word in text.lower() for word in REQUESTS):
        return "I can help with that. What is your user id, and the reservation id if you have one?"
    return "Could you tell me what you need: a booking, a change, a cancellation or a refund?"


def reply(messages: list[dict[str, str]], session_id: str) -> str:
    """The next reply in the conversation `session_id` (a `python` chatbot's signature)."""
    return answer(messages)
