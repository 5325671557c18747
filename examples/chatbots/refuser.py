"""A chatbot that does nothing: it calls no tool and declines every request.

Play a run's events against it to see, in a dialog, what an expected outcome's floor says with no call: every
outcome that expects a change fails it, and only those a refusal reaches pass. A run whose chatbot scores no
better than this one has tested nothing.

    python run.py --config examples/chatbots/refuser.yml --scenarios-from results/airline
"""

from __future__ import annotations

REFUSAL = "I'm sorry, but I can't help with that request."


def reply(messages: list[dict[str, str]]) -> str:
    """The same refusal, whatever the user says."""
    return REFUSAL
