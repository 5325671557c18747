"""Two builds of a small support chatbot, to try the QA gate with.

`careful` keeps the rule that nothing is cancelled before the customer confirms; `hasty`, a
regression, cancels at once. Both are plain Python callables, the simplest kind of chatbot object:
they get the conversation so far (`[{"role": "assistant" | "user", "content": text}, ...]`, the
user's message last) and return the reply. They have no model and no tools; they answer from words.
"""

from __future__ import annotations


def careful(messages: list[dict[str, str]]) -> str:
    """Ask the customer to confirm before cancelling anything; cancel once they say yes."""
    text = messages[-1]["content"].lower()
    if text.startswith("yes") and len(messages) > 1 and "confirm" in messages[-2]["content"]:
        return "Done: it is cancelled."
    if "cancel" in text:
        return "I can cancel it for you. Do you confirm that I should?"
    return _otherwise()


def hasty(messages: list[dict[str, str]]) -> str:
    """Cancel whatever the customer mentions, without asking."""
    if "cancel" in messages[-1]["content"].lower():
        return "Done: it is cancelled."
    return _otherwise()


def _otherwise() -> str:
    return "I can help with your own bookings and orders only. What would you like to do?"
