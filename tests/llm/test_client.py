"""The single door of LLM calls: validated answers, feedback on bad ones, cache, replay, budget, accounting."""

from __future__ import annotations

import asyncio
import time

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from intellagent.llm import AnswerInvalid, BudgetExhausted, HTTPError, ModelSpec, PermanentLLMError, ReplayMiss, Usage


class Flows(BaseModel):
    flows: list[str] = Field(min_length=1)


ASK = [SystemMessage("Split the prompt into flows."), HumanMessage("Book and cancel flights.")]


def ask(llm, schema=Flows, step="describe/flows", messages=ASK):
    return asyncio.run(llm.answer(messages, schema, step=step))


def test_structured_answer_is_validated_and_schema_is_sent(script, make_llm):
    script.on(schema="Flows", reply={"flows": ["book", "cancel"]})
    assert ask(make_llm(script)).flows == ["book", "cancel"]
    (request,) = script.requests
    assert request.body["response_format"]["json_schema"]["schema"]["required"] == ["flows"]


def test_a_structured_request_goes_as_a_plain_one_with_its_schema_in_the_body(script, make_llm, monkeypatch):
    from openai.resources.chat.completions import AsyncCompletions

    def typed_path(*args, **kwargs):  # walks the schema and every message: ~8 ms of CPU a call
        raise AssertionError("the structured request went through the OpenAI library's parse path")

    monkeypatch.setattr(AsyncCompletions, "parse", typed_path)
    script.on(schema="Flows", reply={"flows": ["book"]})
    assert ask(make_llm(script)).flows == ["book"]
    assert script.requests[0].body["response_format"]["json_schema"]["name"] == "Flows"


def test_messages_and_tools_reach_the_wire_as_built_without_the_openai_library_walking_them(
    script, make_llm, monkeypatch
):
    import openai.resources.chat.completions.completions as completions

    walked = []
    original = completions.async_maybe_transform

    async def transform(data, expected_type):  # walks every message and tool to type them: ~2 ms a call
        walked.append(data)
        return await original(data, expected_type)

    monkeypatch.setattr(completions, "async_maybe_transform", transform)
    script.on(schema="Flows", reply={"flows": ["book"]})
    assert ask(make_llm(script)).flows == ["book"]
    (request,) = script.requests
    assert [message["content"] for message in request.body["messages"]] == [m.content for m in ASK]
    assert walked and all(body["messages"] == [] and not isinstance(body.get("tools"), list)
                          and not isinstance(body.get("response_format"), dict) for body in walked)


def test_an_answer_models_schema_is_worked_out_once_and_not_kept_past_the_model(script, make_llm):
    import gc
    import weakref

    class Greeting(BaseModel):
        text: str

    worked_out = []
    original = Greeting.model_json_schema.__func__
    Greeting.model_json_schema = classmethod(lambda cls, *a, **k: worked_out.append(cls) or original(cls, *a, **k))
    script.on(schema="Greeting", reply={"text": "hi"})
    llm = make_llm(script)
    for step in ("simulate/one", "simulate/two"):
        ask(llm, schema=Greeting, step=step, messages=[HumanMessage(step)])
    assert len(script.requests) == 2 and len(worked_out) == 1
    assert script.requests[0].body["response_format"] == script.requests[1].body["response_format"]
    gone = weakref.ref(Greeting)
    worked_out.clear()
    del Greeting
    gc.collect()
    assert gone() is None


def test_invalid_answer_is_sent_back_with_the_error(script, make_llm):
    script.on(schema="Flows", replies=[{"flows": []}, {"flows": ["book"]}])
    assert ask(make_llm(script)).flows == ["book"]
    retry = script.requests[1]
    assert "flows" in retry.last and "could not be used" in retry.last
    assert retry.messages[-2]["role"] == "assistant"


def test_a_re_ask_is_sampled_warmer_than_the_first_answer(script, make_llm):
    script.on(schema="Flows", replies=[{"flows": []}, {"flows": []}, {"flows": ["book"]}])
    ask(make_llm(script, parse_retries=2))
    temperatures = [request.body.get("temperature") for request in script.requests]
    assert temperatures == [0.0, 0.7, 0.7]


def test_answer_that_never_validates_fails_the_step(script, make_llm):
    script.on(schema="Flows", reply="not json")
    with pytest.raises(AnswerInvalid, match="Flows after 3 tries"):
        ask(make_llm(script, parse_retries=2))
    assert len(script.requests) == 3


def test_fenced_json_is_accepted(script, make_llm):
    script.on(schema="Flows", reply='```json\n{"flows": ["refund"]}\n```')
    assert ask(make_llm(script)).flows == ["refund"]


def test_same_request_is_answered_from_the_cache(script, make_llm):
    script.on(schema="Flows", reply={"flows": ["book"]})
    usage = Usage()
    ask(make_llm(script, usage=usage))
    again = make_llm(script, usage=usage)  # a new process reading the same cache file
    assert ask(again).flows == ["book"]
    assert len(script.requests) == 1
    assert (usage.total.calls, usage.total.cached) == (1, 1)


def test_replay_refuses_a_request_the_cache_cannot_answer(script, make_llm):
    script.on(schema="Flows", reply={"flows": ["book"]})
    ask(make_llm(script))
    assert ask(make_llm(script, replay=True)).flows == ["book"]
    with pytest.raises(ReplayMiss, match="describe/other"):
        asyncio.run(make_llm(script, replay=True).answer([HumanMessage("new")], Flows, step="describe/other"))
    assert len(script.requests) == 1


def test_budget_stops_new_calls_once_reached(script, make_llm):
    script.on(schema="Flows", reply={"flows": ["book"]})
    usage = Usage(max_cost_usd=0.000001)
    llm = make_llm(script, usage=usage, spec=ModelSpec(provider="scripted", prices=(1000.0, 1000.0)))
    ask(llm)
    assert usage.total.cost_usd > 0.000001
    with pytest.raises(BudgetExhausted, match="--max-cost"):
        asyncio.run(llm.answer([HumanMessage("another")], Flows, step="describe/flows"))
    assert len(script.requests) == 1


def test_usage_is_counted_per_stage_step_and_role(script, make_llm):
    script.on(reply={"flows": ["book"]})
    usage = Usage()
    ask(make_llm(script, usage=usage, role="policies"), step="describe/flows")
    ask(make_llm(script, usage=usage, role="graph"), step="describe/edges", messages=[HumanMessage("Score.")])
    report = usage.report()
    assert report.stages["describe"].calls == 2
    assert report.steps["describe/edges"].calls == 1
    assert report.roles["graph"].input_tokens > 0 and report.roles["graph"].output_tokens > 0


def test_unknown_model_is_permanent_and_aborts(script, make_llm):
    script.on(reply=HTTPError(404, "The model `gpt-9` does not exist"))
    with pytest.raises(PermanentLLMError, match="does not exist"):
        ask(make_llm(script))


def test_a_model_built_on_demand_is_not_built_for_cached_answers(script, make_llm):
    script.on(schema="Flows", reply={"flows": ["book"]})
    ask(make_llm(script))

    def start_server():
        raise AssertionError("the model was started for an answer the cache holds")

    assert ask(make_llm(script, model=start_server)).flows == ["book"]


def test_the_double_counts_the_cpu_it_spends_answering_and_no_more(script, make_llm):
    def busy(request):  # composing this answer costs the double 30 ms of CPU
        started = time.thread_time()
        while time.thread_time() - started < 0.03:
            pass
        return {"flows": ["book"]}

    script.on(schema="Flows", reply=busy)
    llm = make_llm(script)
    started = time.process_time()
    for step in ("describe/flows", "describe/again"):
        ask(llm, step=step, messages=[*ASK, HumanMessage(step)])

    assert 0.06 <= script.cpu_seconds < time.process_time() - started
