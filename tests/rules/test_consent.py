"""The lexicon of an explicit yes, where no model is asked, and a model's reading where one was."""

from __future__ import annotations

import pytest

from intellagent.artifacts import Message, ToolCall
from intellagent.checks.consent import affirmative, confirmation_breaches
from intellagent.checks.trace import Trace
from intellagent.environment import Environment
from tests.rules.kinds import rule


@pytest.mark.parametrize("answer", ["Yes, please go ahead.", "Sure!", "That's correct, do it.", "ok",
                                    "Yes, that's not a problem.", "Sí, adelante.", "Oui, d'accord.", "Ja, genau."])
def test_an_answer_that_agrees_is_affirmative(answer: str) -> None:
    assert affirmative(answer)


@pytest.mark.parametrize("answer", ["No, don't.", "Not yet.", "Yes? What would it cost?", "I'd rather not",
                                    "Yes, but change the date first.", "OK, wait — which card?", "Nein.",
                                    "Hmm, let me think about it."])
def test_an_answer_that_refuses_asks_or_holds_back_is_not(answer: str) -> None:
    assert not affirmative(answer)


def test_a_models_reading_of_an_answer_in_any_language_decides_where_one_was_asked(returns: Environment) -> None:
    written = rule("{kind: confirmation, tool: cancel_order, arguments: [order_id]}")
    messages = [Message(role="chatbot", content="Hello."),
                Message(role="chatbot", content="Shall I cancel #W1000001?"),
                Message(role="user", content="Hai, onegaishimasu."),
                Message(role="chatbot", content="", tool_calls=[ToolCall(id="1", name="cancel_order",
                                                                         arguments={"order_id": "#W1000001"})])]

    unread = list(confirmation_breaches(written, Trace(messages=messages, environment=returns)))
    read = list(confirmation_breaches(written, Trace(messages=messages, environment=returns, agreed={2: True})))

    assert len(unread) == 1 and read == []
