"""A worker's models answered by the run's process: one cache and budget, the same accounting on both sides."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from intellagent.config import load_config
from intellagent.llm import ModelSpec, ReplayMiss, ResponseCache, RoleModels, ScriptedLLM, Usage
from intellagent.llm.relayed import ModelRequest, Outcome, RelayedModels, answer


class Answer(BaseModel):
    text: str


def models(tmp_path, script: ScriptedLLM, **settings) -> tuple[RoleModels, RelayedModels, list[ModelRequest]]:
    """The run's models, a worker's relayed to them, and the requests the worker sent."""
    (tmp_path / "p.md").write_text("Be kind.")
    config = load_config(base_dir=tmp_path, source={
        "environment": {"policy": "p.md", "schema": "s", "tools": "t"}, "llm": {"default": "scripted"}})
    run = RoleModels(config, cache=ResponseCache(tmp_path / "cache.sqlite"), usage=Usage(), script=script, **settings)
    sent: list[ModelRequest] = []

    async def ask(request: ModelRequest) -> Outcome:
        sent.append(request)
        return await answer(run, request)

    return run, RelayedModels(config, ask=ask, usage=Usage()), sent


def test_a_workers_call_is_answered_cached_and_counted_by_the_run(tmp_path) -> None:
    script = ScriptedLLM().on(role="user", reply={"text": "hello"})
    run, worker, sent = models(tmp_path, script)
    user = worker["user"].with_options(seed=7)

    for _ in range(2):
        assert asyncio.run(user.answer([HumanMessage("hi")], Answer, step="simulate/user")).text == "hello"

    assert len(script.requests) == 1  # the second answer came from the run's cache
    assert sent[0].options["seed"] == 7 and sent[0].role == "user"  # the request exactly as the worker made it
    assert run.usage.report() == worker.usage.report()  # one call and one cached, on both sides
    assert (worker.usage.total.calls, worker.usage.total.cached) == (1, 1)


def test_a_model_of_its_own_spec_is_the_runs_model_of_that_spec(tmp_path) -> None:
    script = ScriptedLLM().on(role="chatbot", reply={"text": "hi"})
    run, worker, sent = models(tmp_path, script)
    own = ModelSpec(provider="scripted", temperature=0.3)

    asyncio.run(worker.model("chatbot", own).answer([HumanMessage("hi")], Answer, step="simulate/chatbot"))

    assert sent[0].spec == own
    assert run.model("chatbot", own) is run.model("chatbot", own) is not run["chatbot"]
    assert script.requests[0].body["temperature"] == 0.3


def test_the_runs_refusal_is_raised_where_the_worker_asked(tmp_path) -> None:
    _, worker, _ = models(tmp_path, ScriptedLLM(), replay=True)

    with pytest.raises(ReplayMiss, match="no recorded answer for analysis"):
        asyncio.run(worker["analysis"].complete([HumanMessage("judge")], step="report/analysis"))
    assert worker.usage.total.calls == 0
