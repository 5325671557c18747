"""Where a model is there to ask, it reads the user's answer before each write, in any language: one question per
answer, whose reading decides over the lexicon."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from intellagent.artifacts import Message, ToolCall
from intellagent.checks import run_checks
from intellagent.checks.compiled_checks import rules_checks
from intellagent.environment import Environment
from intellagent.llm import DirectLLM, HTTPError, ModelSpec, ResponseCache, ScriptedLLM, Usage
from intellagent.llm.factory import build_chat_model, cache_identity
from intellagent.simulate.consent_reading import agreements
from tests.rules.kinds import rule

DIALOG = [Message(role="chatbot", content="Hello."), Message(role="user", content="Cancel #W1000001."),
          Message(role="chatbot", content="Shall I cancel order #W1000001?"),
          Message(role="user", content="Hai, onegaishimasu."),
          Message(role="chatbot", content="", tool_calls=[ToolCall(id="1", name="cancel_order",
                                                                   arguments={"order_id": "#W1000001"})])]
CONFIRM = rule("{kind: confirmation, tool: cancel_order, arguments: [order_id], words: [cancel]}")


@pytest.fixture
def critique(tmp_path: Path) -> Iterator[tuple[ScriptedLLM, DirectLLM]]:
    script = ScriptedLLM()
    spec = ModelSpec(provider="scripted")
    cache = ResponseCache(tmp_path / "cache.sqlite")
    yield script, DirectLLM(role="critique", spec=spec, identity=cache_identity(spec, seed=1), cache=cache,
                            usage=Usage(), model=build_chat_model(spec, role="critique", seed=1, max_retries=0,
                                                                  script=script))
    cache.close()


def confirmation_findings(returns: Environment, agreed: dict[int, bool]) -> list[str]:
    checked = run_checks(returns, DIALOG, before=None, database=None, compiled=rules_checks([CONFIRM]), agreed=agreed)
    return [finding.message for finding in checked.findings if finding.check == CONFIRM.check]


def test_the_answer_before_a_write_is_put_to_the_model_with_the_turn_it_answered(
        critique: tuple[ScriptedLLM, DirectLLM], returns: Environment) -> None:
    script, llm = critique
    script.on(schema="Agreement", reply={"agrees": True})

    readings = asyncio.run(agreements(llm, returns, DIALOG))

    (asked,) = script.calls(schema="Agreement")
    assert readings == {3: True}
    assert "Shall I cancel order #W1000001?" in asked.last and "Hai, onegaishimasu." in asked.last
    assert confirmation_findings(returns, readings) == []


def test_with_no_reading_the_lexicon_decides_and_knows_no_japanese(returns: Environment) -> None:
    assert len(confirmation_findings(returns, {})) == 1


def test_a_question_the_model_fails_leaves_that_answer_to_the_lexicon(
        critique: tuple[ScriptedLLM, DirectLLM], returns: Environment) -> None:
    script, llm = critique
    script.on(schema="Agreement", reply=HTTPError(500))

    assert asyncio.run(agreements(llm, returns, DIALOG)) == {}
